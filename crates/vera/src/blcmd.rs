//! `vera bl ...` and `vera consistency`: the BL language and documentation-versus-
//! implementation checking of the `bl` crate.

use crate::cli::SolverArgs;
use anyhow::{bail, Result};
use bl::check::{check_consistency, Assumption, Bounds, CheckInput, SideSource};
use logic::SourceFile;
use std::path::Path;

fn source(path: &Path) -> Result<SourceFile> {
    let text = safefile::read_text(path)?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

fn program(path: &Path) -> Result<Option<(bl::Program, SourceFile)>> {
    let file = source(path)?;
    match bl::parse(&file) {
        Ok(p) => {
            let w = bl::warnings(&p, &file);
            if !w.is_empty() {
                eprintln!("{w}");
            }
            Ok(Some((p, file)))
        }
        Err(d) => {
            eprintln!("{d}");
            Ok(None)
        }
    }
}

/// Reads a bounds file (`--bounds`: mappings and ranges, JSON).
pub(crate) fn read_bounds(path: &Path) -> Result<Bounds> {
    let text = safefile::read_text(path)?;
    Ok(Bounds::from_json(&path.display().to_string(), &text)?)
}

/// `vera bl check FILE`
pub fn check(a: &crate::cli::BlCheckArgs) -> crate::output::Outcome {
    let path = a.file.as_path();
    let Some((p, _)) = program(path)? else {
        return Err(crate::output::Reported.into());
    };
    let text = printer::bl::summary_text(&path.display().to_string(), &p);
    crate::output::text("bl check", text)
}

/// `vera bl fmt FILE`
pub fn fmt(a: &crate::cli::BlFmtArgs) -> crate::output::Outcome {
    let path = a.file.as_path();
    let Some((p, _)) = program(path)? else {
        return Err(crate::output::Reported.into());
    };
    crate::output::text("bl fmt", bl::format::program(&p))
}

/// `vera bl encode FILE`
pub fn encode(a: &crate::cli::BlEncodeArgs) -> crate::output::Outcome {
    let path = a.file.as_path();
    let Some((p, _)) = program(path)? else {
        return Err(crate::output::Reported.into());
    };
    crate::output::text("bl encode", bl::encode_text(&p))
}

/// `vera bl eval FILE NAME=VALUE...`
pub fn eval(a: &crate::cli::BlEvalArgs) -> crate::output::Outcome {
    let (path, assignments, output) = (a.file.as_path(), &a.inputs, a.output.as_deref());
    let Some((p, _)) = program(path)? else {
        return Err(crate::output::Reported.into());
    };
    let mut pairs = Vec::new();
    for a in assignments {
        let Some((n, v)) = a.split_once('=') else {
            bail!("expected NAME=VALUE, found `{a}`")
        };
        pairs.push((n.trim(), v.trim()));
    }
    let inputs = bl::inputs(&pairs)?;
    let values = bl::run(&p, &inputs)?;
    if let Some(o) = output.filter(|o| !values.contains_key(*o)) {
        bail!("`{o}` is not a binding of {}", path.display());
    }
    crate::output::text("bl eval", printer::bl::eval_text(&p, &values, output))
}

fn options(args: &crate::cli::ConsistencyArgs) -> bl::check::CheckOptions {
    let mut o = bl::check::CheckOptions {
        enumerate: args.enumerate,
        max_regions: args.max_regions,
        ..Default::default()
    };
    if args.no_same_name_mapping {
        o.map_same_named_inputs = false;
    }
    o
}

/// `vera consistency ...`
pub fn consistency(args: &crate::cli::ConsistencyArgs) -> crate::output::Outcome {
    let solver = &args.solver;
    let assumptions = args
        .assume
        .iter()
        .map(|a| Assumption::parse_arg(a))
        .collect::<Result<Vec<_>, _>>()?;
    if !args.merge.is_empty() {
        return merge_reports(&args.merge, args.strict_exceptions);
    }
    if let Some(root) = &args.batch {
        if args.nl.is_some() || args.implementation.is_some() {
            bail!("--batch checks every case under a folder; it does not take --nl or --impl");
        }
        return batch(root, args, assumptions, solver);
    }
    let table_given = args.table_select.by.is_some()
        || !args.table_select.group.is_empty()
        || !args.table_select.names.is_empty()
        || args.table_columns.keys.is_some()
        || args.table_columns.when.is_some()
        || args.table_columns.then.is_some()
        || args.table_columns.bare.is_some();
    if table_given && args.table.is_none() {
        bail!("--group, --by, --name, --keys, --when, --then and --bare describe a table: give it with --table FILE.csv");
    }
    let mut table_output = None;
    let mut table_hull = Vec::new();
    let (nl, nl_file) = match (&args.nl, &args.table) {
        (Some(nl), _) => (nl.clone(), source(nl)?),
        (None, Some(t)) => {
            let f = crate::tablecmd::formalize(
                t,
                &args.table_columns,
                &args.table_select,
                args.nl_output.clone(),
                "nl.",
            )?;
            let name = format!("{} (as SMT-LIB)", t.display());
            table_output = Some(f.output);
            // Compare only where the table has rows: the box around them, as named
            // assumptions the report lists (gaps inside the box still show).
            table_hull = f
                .hull
                .iter()
                .map(|(n, t)| Assumption {
                    name: format!("table_rows_{n}"),
                    term: t.clone(),
                })
                .collect();
            (
                std::path::PathBuf::from(&name),
                SourceFile::new(name, f.text),
            )
        }
        (None, None) => {
            bail!("give --nl A.smt2 (or --table T.csv) and --impl B.bl (or --batch DIR)")
        }
    };
    let nl = &nl;
    let Some(imp) = &args.implementation else {
        bail!("give --impl B.bl (the implementation) to check against");
    };
    let imp_file = source(imp)?;
    let imp_side = SideSource::implementation(imp, imp_file);
    let mut input = CheckInput::new(SideSource::Smt(nl_file.clone()), imp_side);
    input.nl_output = args.nl_output.clone().or(table_output).or_else(|| {
        if args.bounds.is_none() {
            bl::batch::infer_output(&nl_file)
        } else {
            None
        }
    });
    input.bl_output = args.impl_output.clone();
    input.bounds = args.bounds.as_deref().map(read_bounds).transpose()?;
    input.assumptions = assumptions;
    input.assumptions.extend(table_hull);
    input.exceptions =
        bl::exceptions::for_single(imp, !args.no_exceptions, args.exceptions.as_deref())?;
    input.options = options(args);
    let (nl, imp) = (nl.display().to_string(), imp.display().to_string());
    let report = match check_consistency(&input, &solver.config()) {
        Ok(r) => r,
        // The check could not run (a file that does not parse, a solver that failed):
        // the error is shown, and the SARIF and JUnit documents still say so.
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Box::new(printer::bl::not_checked(
                &nl,
                &imp,
                &e.to_string(),
            )));
        }
    };
    Ok(Box::new(printer::bl::consistency_report(
        nl,
        imp,
        report,
        args.strict_exceptions,
    )))
}

fn batch(
    root: &Path,
    args: &crate::cli::ConsistencyArgs,
    assumptions: Vec<Assumption>,
    solver: &SolverArgs,
) -> crate::output::Outcome {
    let (found, total_rows) = bl::batch::cases_under(root, args.shard)?;
    for s in &found.skipped {
        eprintln!(
            "warning: skipped {}: {}",
            printer::bl::esc(&s.path.display().to_string()),
            printer::bl::esc(&s.reason)
        );
    }
    let bounds = args.bounds.as_deref().map(read_bounds).transpose()?;
    let options = bl::batch::BatchOptions {
        check: options(args),
        assumptions,
        jobs: solver.jobs(),
        bounds,
        nl_output: args.nl_output.clone(),
        impl_output: args.impl_output.clone(),
        exceptions_root: (!args.no_exceptions).then(|| root.to_path_buf()),
        exceptions: match &args.exceptions {
            Some(f) => bl::exceptions::load(f)?,
            None => Vec::new(),
        },
    };
    let start = std::time::Instant::now();
    let results = bl::batch::run(&found.cases, &options, &solver.config());
    let seconds = start.elapsed().as_secs_f64();
    let report = bl::batch::BatchReport::new(
        root.display().to_string(),
        seconds,
        args.shard,
        total_rows,
        results,
        found.unresolved,
        found.skipped,
    );
    Ok(Box::new(printer::bl::batch_rendered(
        report,
        args.strict_exceptions,
    )))
}

/// `vera consistency --merge A.json B.json ...`: one batch report from several (the
/// shards of one split, or batches over disjoint case sets).
fn merge_reports(files: &[std::path::PathBuf], strict_exceptions: bool) -> crate::output::Outcome {
    let merged = bl::batch::merge_files(files).map_err(|e| match e {
        bl::batch::MergeFilesError::Read(e) => anyhow::Error::new(e),
        other => anyhow::Error::new(other),
    })?;
    Ok(Box::new(printer::bl::batch_rendered(
        merged,
        strict_exceptions,
    )))
}

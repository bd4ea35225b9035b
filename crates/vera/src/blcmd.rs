//! `vera bl ...` and `vera consistency`: the BL language and documentation-versus-
//! implementation checking of the `bl` crate.

use crate::cli::{Format, SolverArgs};
use crate::output::{paint, Paint, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use anyhow::{bail, Context as _, Result};
use bl::check::{check_consistency, Assumption, Bounds, CheckInput, SideSource, Verdict};
use logic::SourceFile;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn source(path: &Path) -> Result<SourceFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
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

/// `vera bl check FILE`
pub fn check(path: &Path) -> Result<ExitCode> {
    let Some((p, _)) = program(path)? else {
        return Ok(ExitCode::from(EXIT_ERROR));
    };
    let inputs: Vec<&str> = p.inputs().collect();
    println!(
        "{}: {} bindings; inputs: {}; last binding: {}",
        path.display(),
        p.lets.len(),
        if inputs.is_empty() {
            "none".to_string()
        } else {
            inputs.join(", ")
        },
        p.last_name().unwrap_or("none")
    );
    Ok(ExitCode::from(EXIT_OK))
}

/// `vera bl fmt FILE`
pub fn fmt(path: &Path) -> Result<ExitCode> {
    let Some((p, _)) = program(path)? else {
        return Ok(ExitCode::from(EXIT_ERROR));
    };
    print!("{}", bl::format::program(&p));
    Ok(ExitCode::from(EXIT_OK))
}

/// `vera bl encode FILE`
pub fn encode(path: &Path) -> Result<ExitCode> {
    let Some((p, _)) = program(path)? else {
        return Ok(ExitCode::from(EXIT_ERROR));
    };
    print!("{}", bl::encode_text(&p));
    Ok(ExitCode::from(EXIT_OK))
}

/// `vera bl eval FILE NAME=VALUE...`
pub fn eval(path: &Path, assignments: &[String], output: Option<&str>) -> Result<ExitCode> {
    let Some((p, _)) = program(path)? else {
        return Ok(ExitCode::from(EXIT_ERROR));
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
    let show = |v: &num_rational::BigRational| {
        let exact = if v.is_integer() {
            v.to_integer().to_string()
        } else {
            format!("{}/{}", v.numer(), v.denom())
        };
        match bl::format::number(v) {
            Some(d) if d != exact => format!("{d} (= {exact})"),
            Some(d) => d,
            None => exact,
        }
    };
    match output {
        Some(o) => match values.get(o) {
            Some(v) => println!("{o} = {}", show(v)),
            None => bail!("`{o}` is not a binding of {}", path.display()),
        },
        None => {
            let width = p
                .lets
                .iter()
                .map(|l| l.name.len())
                .max()
                .unwrap_or(0)
                .min(40);
            for l in &p.lets {
                if let Some(v) = values.get(&l.name) {
                    println!("{:width$} = {}", l.name, show(v));
                }
            }
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// What `vera consistency` was asked.
pub struct ConsistencyArgs {
    pub nl: Option<PathBuf>,
    pub nl_output: Option<String>,
    pub implementation: Option<PathBuf>,
    pub impl_output: Option<String>,
    pub bounds: Option<PathBuf>,
    pub assume: Vec<String>,
    pub enumerate: bool,
    pub max_regions: usize,
    pub no_same_name_mapping: bool,
    pub batch: Option<PathBuf>,
}

fn options(args: &ConsistencyArgs) -> bl::check::CheckOptions {
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
pub fn consistency(
    args: &ConsistencyArgs,
    solver: &SolverArgs,
    format: Format,
) -> Result<ExitCode> {
    let assumptions = args
        .assume
        .iter()
        .map(|a| Assumption::parse_arg(a))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(root) = &args.batch {
        if args.nl.is_some() || args.implementation.is_some() {
            bail!("--batch checks every case under a folder; it does not take --nl or --impl");
        }
        return batch(root, args, assumptions, solver, format);
    }
    let (Some(nl), Some(imp)) = (&args.nl, &args.implementation) else {
        bail!("give --nl A.smt2 and --impl B.bl (or --batch DIR)");
    };
    let nl_file = source(nl)?;
    let imp_file = source(imp)?;
    let imp_side = if imp.extension().is_some_and(|x| x == "bl") {
        SideSource::Bl(imp_file)
    } else {
        SideSource::Smt(imp_file)
    };
    let mut input = CheckInput::new(SideSource::Smt(nl_file.clone()), imp_side);
    input.nl_output = args.nl_output.clone().or_else(|| {
        if args.bounds.is_none() {
            bl::batch::infer_output(&nl_file)
        } else {
            None
        }
    });
    input.bl_output = args.impl_output.clone();
    if let Some(b) = &args.bounds {
        let text =
            std::fs::read_to_string(b).with_context(|| format!("cannot read {}", b.display()))?;
        input.bounds = Some(Bounds::from_json(&b.display().to_string(), &text)?);
    }
    input.assumptions = assumptions;
    input.options = options(args);
    let report = check_consistency(&input, &solver.config())?;
    match format {
        Format::Json => {
            let j = serde_json::json!({"schema": "vera.consistency.v1", "nl": nl.display().to_string(), "impl": imp.display().to_string(), "report": report});
            println!("{}", serde_json::to_string_pretty(&j)?);
        }
        Format::Human => print!("{}", report.render()),
    }
    Ok(ExitCode::from(match report.verdict {
        Verdict::Consistent => EXIT_OK,
        Verdict::Inconsistent => EXIT_FINDINGS,
        Verdict::Unknown | Verdict::Rejected => EXIT_ERROR,
    }))
}

/// Text from input files (folder names, names in messages) with control characters
/// escaped, for the terminal.
fn esc(s: &str) -> String {
    bl::diag::escape(s).into_owned()
}

fn batch(
    root: &Path,
    args: &ConsistencyArgs,
    assumptions: Vec<Assumption>,
    solver: &SolverArgs,
    format: Format,
) -> Result<ExitCode> {
    let found =
        bl::batch::discover(root).with_context(|| format!("cannot read {}", root.display()))?;
    let cases = found.cases;
    for s in &found.skipped {
        eprintln!(
            "warning: skipped {}: {}",
            esc(&s.path.display().to_string()),
            esc(&s.reason)
        );
    }
    if cases.is_empty() {
        bail!(
            "no cases under {} (a case is a folder with a .bl program and an .smt2 formalization)",
            root.display()
        );
    }
    let default_bounds = match &args.bounds {
        Some(b) => {
            let text = std::fs::read_to_string(b)
                .with_context(|| format!("cannot read {}", b.display()))?;
            Some(Bounds::from_json(&b.display().to_string(), &text)?)
        }
        None => None,
    };
    let options = bl::batch::BatchOptions {
        check: options(args),
        assumptions,
        jobs: solver.jobs(),
        default_bounds,
        nl_output: args.nl_output.clone(),
        impl_output: args.impl_output.clone(),
    };
    let start = std::time::Instant::now();
    let results = bl::batch::run(&cases, &options, &solver.config());
    let seconds = start.elapsed().as_secs_f64();
    let rows = bl::batch::summarize(&results);
    match format {
        Format::Json => {
            let j = serde_json::json!({"schema": "vera.consistency-batch.v1", "root": root.display().to_string(), "seconds": seconds, "summary": rows, "cases": results, "skipped": found.skipped});
            println!("{}", serde_json::to_string_pretty(&j)?);
        }
        Format::Human => {
            let mut o = String::new();
            // Case and dataset names are folder names, and details quote input files:
            // control characters in them are escaped.
            let names: Vec<String> = results.iter().map(|r| esc(&r.case.name)).collect();
            let width = names
                .iter()
                .map(|n| n.chars().count())
                .max()
                .unwrap_or(4)
                .min(40);
            for (r, name) in results.iter().zip(&names) {
                let verdict = match (&r.verdict, &r.error) {
                    (Some(Verdict::Consistent), _) => paint(Paint::Good, "consistent"),
                    (Some(Verdict::Inconsistent), _) => paint(Paint::Bad, "inconsistent"),
                    (Some(Verdict::Unknown), _) => paint(Paint::Warn, "unknown"),
                    (Some(Verdict::Rejected), _) => paint(Paint::Warn, "rejected"),
                    (None, _) => paint(Paint::Warn, "error"),
                };
                let detail = match (&r.report, &r.error, &r.reason) {
                    (Some(rep), _, _) if rep.verdict == Verdict::Inconsistent => rep
                        .regions
                        .first()
                        .map(|g| format!("  e.g. {}", g.conditions.join(" and ")))
                        .unwrap_or_default(),
                    (_, Some(e), _) => format!("  {}", e.lines().next().unwrap_or("")),
                    (_, _, Some(why)) => format!("  {why}"),
                    _ => String::new(),
                };
                let _ = writeln!(
                    o,
                    "{name:width$}  {verdict}  {:.2}s{}",
                    r.seconds,
                    esc(&detail)
                );
            }
            let _ = writeln!(
                o,
                "\n{:<12} {:>5} {:>10} {:>12} {:>8} {:>8} {:>6}",
                "dataset", "cases", "consistent", "inconsistent", "unknown", "rejected", "errors"
            );
            for s in &rows {
                let _ = writeln!(
                    o,
                    "{:<12} {:>5} {:>10} {:>12} {:>8} {:>8} {:>6}",
                    esc(&s.dataset),
                    s.cases,
                    s.consistent,
                    s.inconsistent,
                    s.unknown,
                    s.rejected,
                    s.errors
                );
            }
            let _ = writeln!(o, "\n{} cases in {seconds:.2} s", results.len());
            print!("{o}");
        }
    }
    let failed = results
        .iter()
        .any(|r| matches!(r.verdict, None | Some(Verdict::Unknown | Verdict::Rejected)));
    let inconsistent = results
        .iter()
        .any(|r| r.verdict == Some(Verdict::Inconsistent));
    Ok(ExitCode::from(if failed {
        EXIT_ERROR
    } else if inconsistent {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }))
}

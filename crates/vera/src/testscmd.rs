//! `vera tests`: requirements-based tests from a spec (the `rbt` crate), rendered for a
//! terminal, as JSON (`vera.tests.v1`), as the CSV test table, as SARIF findings and as
//! an HTML page with a card per requirement; the traceability matrix with `--matrix`.

use crate::cli::{SuiteArgs, TestsArgs, TestsCommand, TestsCoverArgs, TestsRunArgs};
use crate::output::clean;
use anyhow::{bail, Context as _, Result};
use rbt::Problem;
use std::path::Path;

/// Runs `vera tests` and its subcommands.
pub fn tests(a: &TestsArgs) -> crate::output::Outcome {
    match &a.command {
        None => generate(a),
        Some(TestsCommand::Run(r)) => run(r),
        Some(TestsCommand::Cover(c)) => cover(c),
    }
}

/// Reads the spec (TOML) or documentation side (SMT-LIB) with the suite options.
pub(crate) fn load_problem(spec: &Path, s: &SuiteArgs) -> Result<Problem> {
    let is_smt = spec
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("smt2"));
    let mut p = if is_smt {
        let text = safefile::read_text(spec)?;
        let file = logic::SourceFile::new(spec.display().to_string(), text);
        let bounds = s
            .bounds
            .as_deref()
            .map(crate::blcmd::read_bounds)
            .transpose()?;
        if s.inputs.is_some() || s.roles.is_some() {
            bail!("--inputs and --roles are for specs; the inputs of a documentation side come from its definitions and --bounds");
        }
        Problem::from_documentation(&file, bounds.as_ref()).map_err(|e| match e {
            rbt::ProblemError::Invalid(d) => {
                eprintln!("{d}");
                crate::output::Reported.into()
            }
            other => anyhow::anyhow!("{other}"),
        })?
    } else {
        if s.bounds.is_some() {
            bail!(
                "--bounds is for an SMT-LIB documentation side (.smt2); {} is a spec",
                spec.display()
            );
        }
        let loaded = crate::audit::load_spec_timed(spec, None)?;
        let inputs = match (&s.inputs, &s.roles) {
            (Some(i), _) => Some(i.clone()),
            (None, Some(r)) => {
                let text = safefile::read_text(r)?;
                Some(
                    rbt::problem::read_roles(&r.display().to_string(), &text)
                        .map_err(|e| anyhow::anyhow!("{e}"))?,
                )
            }
            (None, None) => None,
        };
        Problem::from_spec(loaded, inputs.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))?
    };
    for st in &s.step {
        let (name, value) = match st.split_once('=') {
            Some((n, v)) => (Some(n.trim()), v),
            None => (None, st.as_str()),
        };
        let v = rbt::values::rational(value)
            .with_context(|| format!("--step {st}: `{value}` is not a number"))?;
        p.set_step(name, v)
            .map_err(|e| anyhow::anyhow!("--step {st}: {e}"))?;
    }
    Ok(p)
}

/// The problem of a timed spec's sequences; the options of plain specs are refused.
fn sequences_problem(path: &Path, s: &SuiteArgs, spec: reqs::Spec) -> Result<Problem> {
    if s.inputs.is_some() || s.roles.is_some() || s.bounds.is_some() {
        bail!("--inputs, --roles and --bounds are for plain specs; a timed spec's sequences use its own roles (role = \"input\")");
    }
    Problem::for_sequences(spec).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// A suite file that cannot be used: its problems on standard error, then the error.
fn unusable(name: &str, problems: &[String]) -> anyhow::Error {
    for l in problems {
        eprintln!("error: {}", clean(l));
    }
    anyhow::anyhow!("{name} cannot be used: {} error(s) above", problems.len())
}

/// A timed spec, read when SPEC has a `[time]` table.
fn timed_spec(spec: &Path) -> Result<Option<reqs::Spec>> {
    if spec
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("smt2"))
    {
        return Ok(None);
    }
    let loaded = crate::audit::load_spec_timed(spec, None)?;
    Ok(loaded.time.is_some().then_some(loaded))
}

fn generate(a: &TestsArgs) -> crate::output::Outcome {
    let spec = a.spec.as_deref().context("vera tests needs a SPEC")?;
    if let Some(m) = &a.matrix {
        safefile::check_output(m, crate::files::force())?;
    }
    if let Some(timed) = timed_spec(spec)? {
        if a.suite.inputs.is_some() || a.suite.roles.is_some() || !a.suite.step.is_empty() {
            bail!("--inputs, --roles and --step are for plain specs; a timed spec's sequences use its own roles and tick");
        }
        return generate_timed(&timed, a);
    }
    let p = load_problem(spec, &a.suite)?;
    let mut options = rbt::Options::new(a.solver.config());
    options.boundaries = !a.suite.no_boundaries;
    let start = std::time::Instant::now();
    let suite = rbt::generate(&p, &options).map_err(|e| anyhow::anyhow!("{e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(m) = &a.matrix {
        safefile::write_atomic(
            m,
            rbt::table::matrix_csv(&suite).as_bytes(),
            crate::files::force(),
        )?;
    }
    Ok(Box::new(printer::tests::suite_report(&p, suite, seconds)))
}

/// `NAME=VALUE` pairs of `--fix`.
fn fixed_values(items: &[String]) -> Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|s| match s.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() && !v.trim().is_empty() => {
                Ok((n.trim().to_string(), v.trim().to_string()))
            }
            _ => bail!("--fix {s}: write NAME=VALUE"),
        })
        .collect()
}

/// The implementation `--impl` names (a BL program, a C function, or an executable),
/// set up over `p`'s names, and the `--tolerance` for numeric outputs.
fn implementation(
    p: &Problem,
    a: &TestsRunArgs,
) -> Result<(
    Box<dyn rbt::run::Implementation>,
    Option<num_rational::BigRational>,
)> {
    use rbt::run::{BlProgram, Executable, Implementation};
    let map = rbt::run::parse_map(&a.map).map_err(|e| anyhow::anyhow!("--map: {e}"))?;
    let fixed = fixed_values(&a.fix)?;
    let timeout = std::time::Duration::from_secs_f64(a.case_timeout);
    let tolerance = match &a.tolerance {
        Some(t) => {
            let v = rbt::values::rational(t)
                .filter(|v| *v >= num_rational::BigRational::from_integer(0.into()))
                .with_context(|| format!("--tolerance {t}: not a number of at least 0"))?;
            Some(v)
        }
        None => None,
    };
    let path = &a.implementation;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if ext != "c" && a.function.is_some() {
        bail!("--function is for a C implementation (a .c file)");
    }
    let imp: Box<dyn Implementation> = match ext.as_str() {
        "bl" => {
            let text = safefile::read_text(path)?;
            let file = logic::SourceFile::new(path.display().to_string(), text);
            let program = match bl::parse(&file) {
                Ok(pr) => pr,
                Err(d) => {
                    eprintln!("{d}");
                    return Err(crate::output::Reported.into());
                }
            };
            let bounds = (a.suite.bounds.as_deref())
                .map(crate::blcmd::read_bounds)
                .transpose()?;
            Box::new(
                BlProgram::new(
                    p,
                    &path.display().to_string(),
                    program,
                    &map,
                    bounds.as_ref(),
                    &fixed,
                )
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
            )
        }
        "c" => {
            let function = a
                .function
                .as_deref()
                .context("a C implementation needs --function NAME")?;
            if !fixed.is_empty() {
                bail!("--fix is for BL programs and executables; a C function takes only its parameters");
            }
            let result = a.outputs.as_ref().map(|o| o.join(","));
            Box::new(
                rbt::cfunc::CFunction::build(p, path, function, &map, result.as_deref(), timeout)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
            )
        }
        _ => Box::new(
            Executable::new(
                p,
                path.clone(),
                a.args.clone(),
                timeout,
                &map,
                a.outputs.as_deref(),
                fixed,
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        ),
    };
    Ok((imp, tolerance))
}

fn run(a: &TestsRunArgs) -> crate::output::Outcome {
    if let Some(timed) = timed_spec(&a.spec)? {
        return run_sequences(a, timed);
    }
    let p = load_problem(&a.spec, &a.suite)?;
    let (mut imp, tolerance) = implementation(&p, a)?;
    let start = std::time::Instant::now();
    let mut options = rbt::Options::new(a.solver.config());
    options.boundaries = !a.suite.no_boundaries;
    let suite = rbt::generate(&p, &options).map_err(|e| anyhow::anyhow!("{e}"))?;
    if suite.cases.is_empty() {
        bail!("the suite has no case to run (every obligation is unreachable or undecided)");
    }
    let report = rbt::run::run_suite(
        &p,
        &suite,
        imp.as_mut(),
        &a.solver.config(),
        tolerance.as_ref(),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::tests::run_report(
        &p, &suite, report, seconds,
    )))
}

fn cover(a: &TestsCoverArgs) -> crate::output::Outcome {
    if let Some(timed) = timed_spec(&a.spec)? {
        return cover_sequences(a, timed);
    }
    let p = load_problem(&a.spec, &a.suite)?;
    let text = safefile::read_text(&a.vectors)?;
    let name = a.vectors.display().to_string();
    let vectors = match rbt::cover::read_vectors(&p, &name, &text) {
        Ok(v) => v,
        Err(e) => return Err(unusable(&name, &e.0)),
    };
    let start = std::time::Instant::now();
    let r = rbt::cover::cover(&p, &vectors, &a.solver.config(), !a.suite.no_boundaries)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::tests::cover_report(
        &p,
        &name,
        r,
        &a.solver.config().kind.to_string(),
        seconds,
    )))
}

fn generate_timed(spec: &reqs::Spec, a: &TestsArgs) -> crate::output::Outcome {
    let start = std::time::Instant::now();
    let suite =
        rbt::timed::generate_timed(spec, &a.solver.config()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    let matrix = rbt::timed::matrix_rows(spec, &suite);
    if let Some(m) = &a.matrix {
        safefile::write_atomic(
            m,
            printer::tests::rows_csv(&matrix).as_bytes(),
            crate::files::force(),
        )?;
    }
    Ok(Box::new(printer::tests::timed_report(
        spec, suite, &matrix, seconds,
    )))
}

/// `vera tests run` on a timed spec: the test sequences, made and run.
fn run_sequences(a: &TestsRunArgs, spec: reqs::Spec) -> crate::output::Outcome {
    let p = sequences_problem(&a.spec, &a.suite, spec)?;
    let (mut imp, tolerance) = implementation(&p, a)?;
    let start = std::time::Instant::now();
    let config = a.solver.config();
    let suite = rbt::timed::generate_timed(&p.spec, &config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let report =
        rbt::timed_run::run_timed(&p.spec, &suite, imp.as_mut(), &config, tolerance.as_ref())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    if report.sequences.is_empty() {
        bail!("the suite has no sequence to run (every one is unreachable or undecided)");
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::tests::run_timed_report(
        &p, &suite, report, seconds,
    )))
}

/// `vera tests cover` on a timed spec: a suite of sequences measured against the
/// shapes `vera tests` makes.
fn cover_sequences(a: &TestsCoverArgs, spec: reqs::Spec) -> crate::output::Outcome {
    let p = sequences_problem(&a.spec, &a.suite, spec)?;
    let text = safefile::read_text(&a.vectors)?;
    let name = a.vectors.display().to_string();
    let suite = match rbt::timed_cover::read_sequences(&p, &name, &text) {
        Ok(v) => v,
        Err(e) => return Err(unusable(&name, &e.0)),
    };
    let start = std::time::Instant::now();
    let config = a.solver.config();
    let r =
        rbt::timed_cover::cover_timed(&p, &suite, &config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(Box::new(printer::tests::cover_timed_report(
        &p,
        &name,
        r,
        &config.kind.to_string(),
        seconds,
    )))
}

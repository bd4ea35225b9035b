//! `vera tests`: requirements-based tests from a spec (`rbt::command`), rendered for a
//! terminal, as JSON (`vera.tests.v1`), as the CSV test table, as SARIF findings and as
//! an HTML page with a card per requirement; the traceability matrix with `--matrix`.

use crate::cli::{SuiteArgs, TestsArgs, TestsCommand, TestsCoverArgs, TestsRunArgs};
use anyhow::{Context as _, Result};
use rbt::command::Error;
use std::path::Path;

/// Runs `vera tests` and its subcommands.
pub fn tests(a: &TestsArgs) -> crate::output::Outcome {
    match &a.command {
        None => generate(a),
        Some(TestsCommand::Run(r)) => run(r),
        Some(TestsCommand::Cover(c)) => cover(c),
    }
}

/// The binary's reading: bounded, as inputs, specs with their diagnostics shown.
struct Files;

impl rbt::command::Inputs for Files {
    type Error = anyhow::Error;
    fn text(&self, path: &Path) -> Result<String> {
        Ok(safefile::read_text(path)?)
    }
    fn spec(&self, path: &Path) -> Result<reqs::Spec> {
        crate::audit::load(path, None, reqs::input::Load::Timed)
    }
    fn bounds(&self, path: &Path) -> Result<bl::check::Bounds> {
        crate::blcmd::read_bounds(path)
    }
}

/// An error of `rbt::command`: located problems on standard error first.
fn failed(e: Error<anyhow::Error>) -> anyhow::Error {
    match e {
        Error::Input(e) => e,
        Error::Invalid(d) => {
            eprintln!("{d}");
            crate::output::Reported.into()
        }
        other => {
            if let Error::Unusable { problems, .. } = &other {
                for l in problems {
                    eprintln!("error: {}", crate::output::clean(l));
                }
            }
            anyhow::anyhow!("{other}")
        }
    }
}

fn suite(s: &SuiteArgs) -> rbt::command::SuiteOptions {
    rbt::command::SuiteOptions {
        inputs: s.inputs.clone(),
        roles: s.roles.clone(),
        step: s.step.clone(),
        no_boundaries: s.no_boundaries,
        bounds: s.bounds.clone(),
    }
}

fn generate(a: &TestsArgs) -> crate::output::Outcome {
    let spec = a.spec.as_deref().context("vera tests needs a SPEC")?;
    if let Some(m) = &a.matrix {
        safefile::check_output(m, crate::files::force())?;
    }
    let generated = rbt::command::generate(spec, &suite(&a.suite), &a.solver.config(), &Files);
    let (report, matrix) = printer::tests::generated(generated.map_err(failed)?);
    if let Some(m) = &a.matrix {
        safefile::write_atomic(m, matrix.as_bytes(), crate::files::force())?;
    }
    Ok(report)
}

fn run(a: &TestsRunArgs) -> crate::output::Outcome {
    let o = rbt::command::RunOptions {
        implementation: a.implementation.clone(),
        args: a.args.clone(),
        function: a.function.clone(),
        map: a.map.clone(),
        outputs: a.outputs.clone(),
        fix: a.fix.clone(),
        case_timeout: a.case_timeout,
        tolerance: a.tolerance.clone(),
    };
    let ran = rbt::command::run(&a.spec, &suite(&a.suite), &o, &a.solver.config(), &Files);
    Ok(printer::tests::ran(ran.map_err(failed)?))
}

fn cover(a: &TestsCoverArgs) -> crate::output::Outcome {
    let (name, config) = (a.vectors.display().to_string(), a.solver.config());
    let solver = config.kind.to_string();
    let covered = rbt::command::cover(&a.spec, &a.vectors, &suite(&a.suite), &config, &Files);
    Ok(printer::tests::covered(
        covered.map_err(failed)?,
        &name,
        &solver,
    ))
}

//! `vera bl ...` and `vera consistency`: the BL language and documentation-versus-
//! implementation checking of the `bl` crate (`bl::command`).

use anyhow::Result;
use bl::command::{Consistency, Error};
use std::path::Path;

/// An error of `bl::command`: a program's located problems on standard error first.
pub(crate) fn failed<E>(e: Error<E>) -> anyhow::Error
where
    E: Into<anyhow::Error> + std::fmt::Display + std::fmt::Debug + Send + Sync + 'static,
{
    match e {
        Error::Read(e) => e.into(),
        Error::Invalid(d) => {
            eprintln!("{d}");
            crate::output::Reported.into()
        }
        Error::Caller(e) => e.into(),
        other => other.into(),
    }
}

/// The program at `path`, its warnings shown.
fn program(path: &Path) -> Result<bl::Program> {
    let loaded = bl::command::program(path).map_err(failed)?;
    if !loaded.warnings.is_empty() {
        eprintln!("{}", loaded.warnings);
    }
    Ok(loaded.program)
}

/// Reads a bounds file (`--bounds`: mappings and ranges, JSON).
pub(crate) fn read_bounds(path: &Path) -> Result<bl::check::Bounds> {
    bl::command::read_bounds(path).map_err(failed)
}

/// `vera bl check FILE`
pub fn check(a: &crate::cli::BlFileArgs) -> crate::output::Outcome {
    let p = program(&a.file)?;
    let text = printer::bl::summary_text(&a.file.display().to_string(), &p);
    crate::output::text("bl check", text)
}

/// `vera bl fmt FILE`
pub fn fmt(a: &crate::cli::BlFileArgs) -> crate::output::Outcome {
    crate::output::text("bl fmt", bl::format::program(&program(&a.file)?))
}

/// `vera bl encode FILE`
pub fn encode(a: &crate::cli::BlFileArgs) -> crate::output::Outcome {
    crate::output::text("bl encode", bl::encode_text(&program(&a.file)?))
}

/// `vera bl eval FILE NAME=VALUE...`
pub fn eval(a: &crate::cli::BlEvalArgs) -> crate::output::Outcome {
    let p = program(&a.file)?;
    let output = a.output.as_deref();
    let values = bl::command::eval(&a.file, &p, &a.inputs, output).map_err(failed)?;
    crate::output::text("bl eval", printer::bl::eval_text(&p, &values, output))
}

/// The options of `vera consistency` as `bl::command` takes them.
fn options(args: &crate::cli::ConsistencyArgs) -> bl::command::ConsistencyOptions {
    let (t, s) = (&args.table_columns, &args.table_select);
    bl::command::ConsistencyOptions {
        nl: args.nl.clone(),
        nl_output: args.nl_output.clone(),
        table: args.table.clone(),
        table_options: s.by.is_some()
            || !s.group.is_empty()
            || !s.names.is_empty()
            || t.keys.is_some()
            || t.when.is_some()
            || t.then.is_some()
            || t.bare.is_some(),
        implementation: args.implementation.clone(),
        impl_output: args.impl_output.clone(),
        bounds: args.bounds.clone(),
        assume: args.assume.clone(),
        check: bl::check::CheckOptions {
            enumerate: args.enumerate,
            max_regions: args.max_regions,
            map_same_named_inputs: !args.no_same_name_mapping,
            ..Default::default()
        },
        exceptions: args.exceptions.clone(),
        no_exceptions: args.no_exceptions,
        batch: args.batch.clone(),
        shard: args.shard,
        merge: args.merge.clone(),
        jobs: args.solver.jobs(),
    }
}

/// `vera consistency ...`
pub fn consistency(args: &crate::cli::ConsistencyArgs) -> crate::output::Outcome {
    let (t, s) = (&args.table_columns, &args.table_select);
    let table = |path: &Path| -> Result<bl::command::TableSide> {
        let f = crate::tablecmd::formalize(path, t, s, args.nl_output.clone(), "nl.")?;
        Ok(bl::command::TableSide {
            text: f.text,
            output: f.output,
            hull: f.hull,
        })
    };
    let skipped = |s: &bl::batch::Skipped| {
        let path = s.path.display().to_string();
        eprintln!(
            "warning: skipped {}: {}",
            printer::bl::esc(&path),
            printer::bl::esc(&s.reason)
        );
    };
    let c = bl::command::consistency(&options(args), &args.solver.config(), table, skipped)
        .map_err(failed)?;
    // A check that could not run (a file that does not parse, a solver that failed):
    // the error is shown, and the SARIF and JUnit documents still say so.
    if let Consistency::NotChecked { error, .. } = &c {
        eprintln!("error: {error}");
    }
    Ok(printer::bl::consistency(c, args.strict_exceptions))
}

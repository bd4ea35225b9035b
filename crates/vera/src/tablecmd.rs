//! `vera table check`: gaps, conflicts and overlaps of a rate or fee table (the `table`
//! crate), rendered for a terminal, as JSON (`vera.table-check.v1`) and as SARIF.

use crate::output::clean;

/// `vera table check FILE`
pub fn check(a: &crate::cli::TableCheckArgs) -> crate::output::Outcome {
    use pipeline::cells::{CellOptions, ReadTable, ReadTableError};
    let bytes = crate::files::read_utf8(&a.file)?;
    let t = table::Table::read(&a.file.display().to_string(), &bytes)?;
    let options = table::command::check_options(columns(&a.columns), &a.range)?;
    let read = if a.llm {
        let (retries, max_cells) = (a.cell_retries, a.max_cells);
        let o = CellOptions {
            retries,
            max_cells,
            ..Default::default()
        };
        let client = || a.llm_args.client();
        let read = pipeline::cells::read_table(t, &options.columns, client, &o);
        read.map_err(|e| match e {
            ReadTableError::Client(e) => e,
            ReadTableError::Table(e) => e.into(),
            ReadTableError::Llm(e) => e.into(),
        })?
    } else if a.llm_args.record.is_some() || a.llm_args.replay.is_some() {
        anyhow::bail!("--record and --replay need --llm (the model is asked only with --llm)");
    } else {
        ReadTable::unread(t)
    };
    let report = table::check(&read.table, &options, &a.solver.config())?;
    Ok(Box::new(printer::table::TableRun::of(report, read)))
}

fn columns(c: &crate::cli::TableColumnsArgs) -> table::Columns {
    table::Columns {
        keys: c.keys.clone(),
        when: c.when.clone(),
        then: c.then.clone(),
        bare: c.bare,
    }
}

/// One group of a table as a formalization. Cells that cannot be read are printed as
/// warnings (they are left out of the formalization, never dropped silently).
pub(crate) fn formalize(
    path: &std::path::Path,
    cols: &crate::cli::TableColumnsArgs,
    select: &crate::cli::TableSelectArgs,
    output: Option<String>,
    hull_prefix: &str,
) -> anyhow::Result<table::Formalization> {
    let bytes = crate::files::read_utf8(path)?;
    let name = path.display().to_string();
    let t = table::Table::read(&name, &bytes)?;
    let choice = table::command::Choice {
        group: select.group.clone(),
        by: select.by.clone(),
        names: select.names.clone(),
        output,
        hull_prefix: hull_prefix.to_string(),
    };
    let f = table::command::formalize(&t, columns(cols), &choice)?;
    for p in &f.problems {
        let col = p.column.map(|c| format!(":{c}")).unwrap_or_default();
        eprintln!("warning: {name}:{}{col}: {}", p.line, clean(&p.message));
    }
    Ok(f)
}

/// `vera table smt FILE`
pub fn smt(a: &crate::cli::TableSmtArgs) -> crate::output::Outcome {
    let f = formalize(&a.file, &a.columns, &a.select, a.output_name.clone(), "")?;
    crate::output::text("table smt", f.text)
}

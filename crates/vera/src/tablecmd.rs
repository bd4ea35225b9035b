//! `vera table check`: gaps, conflicts and overlaps of a rate or fee table (the `table`
//! crate), rendered for a terminal, as JSON (`vera.table-check.v1`) and as SARIF.

use crate::output::clean;

/// `vera table check FILE`
pub fn check(a: &crate::cli::TableCheckArgs) -> crate::output::Outcome {
    let bytes = crate::files::read_utf8(&a.file)?;
    let name = a.file.display().to_string();
    let t = table::Table::read(&name, &bytes)?;
    let options = table::command::check_options(columns(&a.columns), &a.range)?;
    let (mut readings, mut reading_rows, mut acc) = (Vec::new(), Vec::new(), None);
    let mut t = t;
    if a.llm {
        let cells = pipeline::cells::unreadable(&t, &options.columns)?;
        if !cells.is_empty() {
            let client = a.llm_args.client()?;
            let o = pipeline::cells::CellOptions {
                retries: a.cell_retries,
                max_cells: a.max_cells,
                ..Default::default()
            };
            let names = pipeline::cells::inputs(&t, &options.columns)?;
            readings = pipeline::cells::read_cells(&t, &cells, &names, &client, &o)?;
            reading_rows = readings.iter().map(|r| t.rows[r.row].line).collect();
            t = pipeline::cells::apply(&t, &readings);
            acc = Some(client.accounting());
        }
    } else if a.llm_args.record.is_some() || a.llm_args.replay.is_some() {
        anyhow::bail!("--record and --replay need --llm (the model is asked only with --llm)");
    }
    let report = table::check(&t, &options, &a.solver.config())?;
    // The group of each model-read row, as the check keys it.
    let reading_groups = readings
        .iter()
        .map(|r| t.group_of(r.row, &report.keys))
        .collect();
    Ok(Box::new(printer::table::TableRun {
        report,
        readings,
        reading_rows,
        reading_groups,
        llm: acc,
    }))
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

//! The suite as tables for the tools people use: the CSV test table (one row per
//! case: id, the obligations it covers, its requirements, the inputs, the expected
//! outputs) and the traceability matrix (one row per requirement, one column per
//! case, the obligations the case covers in the cell).

use crate::suite::Suite;

fn write(rows: Vec<Vec<String>>) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for r in rows {
        // Writing to memory cannot fail.
        let _ = w.write_record(&r);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// The CSV test table. Columns: `id`, `obligations` and `requirements` (space
/// separated), then one column per input and one per output, named as the variables;
/// an output cell holds the expected value, `free` or `undecided`.
pub fn csv(suite: &Suite) -> String {
    let mut header = vec![
        "id".to_string(),
        "obligations".into(),
        "requirements".into(),
    ];
    header.extend(suite.inputs.iter().cloned());
    header.extend(suite.outputs.iter().cloned());
    let mut rows = vec![header];
    for c in &suite.cases {
        let mut row = vec![c.id.clone(), c.covers.join(" "), c.requirements.join(" ")];
        for i in &suite.inputs {
            row.push(
                c.inputs
                    .iter()
                    .find(|x| &x.variable == i)
                    .map(|x| x.value.clone())
                    .unwrap_or_default(),
            );
        }
        for o in &suite.outputs {
            row.push(
                c.expected
                    .iter()
                    .find(|x| &x.variable == o)
                    .map(|x| x.value.cell())
                    .unwrap_or_default(),
            );
        }
        rows.push(row);
    }
    write(rows)
}

/// The traceability matrix as rows: a header (`requirement`, then the case ids) and
/// one row per requirement, each cell the obligations of that requirement the case
/// covers (their part after the `/`, space separated; empty when none).
pub fn matrix_rows(suite: &Suite) -> Vec<Vec<String>> {
    let mut header = vec!["requirement".to_string()];
    header.extend(suite.cases.iter().map(|c| c.id.clone()));
    let mut rows = vec![header];
    for r in &suite.requirements {
        let prefix = format!("{}/", r.id);
        let mut row = vec![r.id.clone()];
        for c in &suite.cases {
            let cell: Vec<&str> = c
                .covers
                .iter()
                .filter_map(|o| o.strip_prefix(&prefix))
                .collect();
            row.push(cell.join(" "));
        }
        rows.push(row);
    }
    rows
}

/// The traceability matrix as CSV.
pub fn matrix_csv(suite: &Suite) -> String {
    write(matrix_rows(suite))
}

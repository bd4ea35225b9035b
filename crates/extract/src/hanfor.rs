//! Hanfor CSV: a header row names the columns (id, description, type, formalization);
//! Hanfor writes quotes inside a field with a backslash (`\"`), which is read as such.

use crate::{one_line, Confidence, ExtractError, Extraction, Requirement, Source};

fn norm(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

pub(crate) fn extract(file: &str, text: &str, x: &mut Extraction) -> Result<(), ExtractError> {
    let backslash = text.contains("\\\"");
    let mut b = csv::ReaderBuilder::new();
    b.flexible(true).has_headers(false);
    if backslash {
        b.escape(Some(b'\\')).double_quote(false);
    }
    let mut rd = b.from_reader(text.as_bytes());
    let err = |e: csv::Error| {
        let (line, record) = e
            .position()
            .map_or((0, 0), |p| (p.line() as u32, p.record() as u32 + 1));
        let message = match e.kind() {
            csv::ErrorKind::Utf8 { .. } => "not UTF-8".to_string(),
            _ => e.to_string(),
        };
        ExtractError::Syntax {
            file: file.into(),
            line: line.max(1),
            column: 1,
            message: format!("record {record}: {message}"),
        }
    };
    let mut rows = rd.records();
    let Some(header) = rows.next() else {
        return Err(ExtractError::Shape {
            file: file.into(),
            message: "no header row".into(),
        });
    };
    let header = header.map_err(err)?;
    let names: Vec<String> = header.iter().map(norm).collect();
    let find = |cands: &[&str]| cands.iter().find_map(|c| names.iter().position(|n| n == c));
    let id_col = find(&["id", "reqid", "requirementid", "identifier", "key"]);
    let text_col = find(&[
        "description",
        "text",
        "requirementtext",
        "requirement",
        "statement",
    ]);
    let type_col = find(&["type", "requirementtype", "reqtype", "kind"]);
    let formal_col = find(&[
        "formaltext",
        "formalization",
        "formalisation",
        "formalizations",
        "formula",
    ]);
    let (Some(id_col), Some(text_col)) = (id_col, text_col) else {
        return Err(ExtractError::Syntax {
            file: file.into(),
            line: 1,
            column: 1,
            message: format!(
                "no {} column in the header row (found: {})",
                if id_col.is_none() {
                    "id"
                } else {
                    "description/text"
                },
                header.iter().collect::<Vec<_>>().join(", ")
            ),
        });
    };
    let mut skipped = Vec::new();
    for (i, row) in rows.enumerate() {
        let row = row.map_err(err)?;
        let line = row.position().map_or(0, |p| p.line() as u32);
        if row.len() != header.len() {
            return Err(ExtractError::Syntax {
                file: file.into(),
                line,
                column: 1,
                message: format!(
                    "row {} has {} fields, the header row {} (a quote not closed or not escaped?)",
                    i + 2,
                    row.len(),
                    header.len()
                ),
            });
        }
        if row.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let cell = |c: Option<usize>| {
            c.and_then(|c| row.get(c))
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let kind = cell(type_col).map(str::to_string);
        if kind.as_deref().is_some_and(|k| {
            matches!(
                norm(k).as_str(),
                "heading"
                    | "header"
                    | "title"
                    | "section"
                    | "information"
                    | "info"
                    | "comment"
                    | "note"
            )
        }) {
            skipped.push(line.to_string());
            continue;
        }
        let Some(id) = cell(Some(id_col)) else {
            return Err(ExtractError::Syntax {
                file: file.into(),
                line,
                column: id_col as u32 + 1,
                message: format!("row {} has no id", i + 2),
            });
        };
        let text = cell(Some(text_col)).map(one_line).unwrap_or_default();
        if text.is_empty() {
            x.notes.push(format!(
                "requirement {id} (line {line}) has an empty description"
            ));
        }
        x.requirements.push(Requirement {
            id: id.to_string(),
            text,
            section: None,
            kind,
            confidence: Confidence::High,
            source: Source {
                file: file.into(),
                line: Some(line),
                record: Some(i as u32 + 1),
            },
            fretish: None,
            formalization: cell(formal_col).map(str::to_string),
        });
    }
    if !skipped.is_empty() {
        x.notes.push(format!(
            "skipped {} heading or information rows (lines {})",
            skipped.len(),
            skipped.join(", ")
        ));
    }
    Ok(())
}

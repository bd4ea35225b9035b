//! Hanfor CSV: a header row names the columns (id, description, type, formalization);
//! Hanfor writes quotes inside a field with a backslash (`\"`), which is read as such.

use crate::{one_line, Confidence, ExtractError, Extraction, Requirement, Source};

fn norm(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// One CSV record: the line it starts on and its fields.
struct Record {
    line: u32,
    fields: Vec<String>,
}

/// Reads Hanfor's CSV dialect: `,` between fields, `"` quotes (`""` inside quotes is a
/// quote). With `backslash` (Hanfor writes `\"` for a quote), a backslash takes the next
/// character as it is, inside quotes or not, as Python's `csv` module (which Hanfor
/// uses) reads an escape character. A record's line is the line of its first character
/// (a CRLF is one line end, blank lines count); blank lines are no records. A quote
/// that is never closed is an error at the line where it opens.
fn records(file: &str, text: &str, backslash: bool) -> Result<Vec<Record>, ExtractError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line: u32 = 1;
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut start_line = 1;
    // Whether the record has begun (a character that is not a line end was seen).
    let mut begun = false;
    let mut quoted: Option<u32> = None;
    let mut field_start = true;
    while let Some(c) = chars.next() {
        if !begun && c != '\n' && c != '\r' {
            begun = true;
            start_line = line;
        }
        if backslash && c == '\\' {
            match chars.next() {
                Some(n) => {
                    if n == '\n' {
                        line += 1;
                    }
                    field.push(n);
                }
                None => field.push(c),
            }
            field_start = false;
            continue;
        }
        if quoted.is_some() {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = None,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field_start => {
                quoted = Some(line);
                field_start = false;
            }
            ',' => {
                fields.push(std::mem::take(&mut field));
                field_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                if begun {
                    fields.push(std::mem::take(&mut field));
                    out.push(Record {
                        line: start_line,
                        fields: std::mem::take(&mut fields),
                    });
                }
                begun = false;
                field_start = true;
                line += 1;
            }
            c => {
                field.push(c);
                field_start = false;
            }
        }
    }
    if let Some(at) = quoted {
        return Err(ExtractError::Syntax {
            file: file.into(),
            line: at,
            column: 1,
            message: "a quoted field is never closed (a `\"` without its closing `\"`)".into(),
        });
    }
    if begun {
        fields.push(field);
        out.push(Record {
            line: start_line,
            fields,
        });
    }
    Ok(out)
}

pub(crate) fn extract(file: &str, text: &str, x: &mut Extraction) -> Result<(), ExtractError> {
    let backslash = text.contains("\\\"");
    let mut rows = records(file, text, backslash)?.into_iter();
    let Some(header) = rows.next() else {
        return Err(ExtractError::Shape {
            file: file.into(),
            message: "no header row".into(),
        });
    };
    let header = header.fields;
    let names: Vec<String> = header.iter().map(|h| norm(h)).collect();
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
                header.join(", ")
            ),
        });
    };
    let mut skipped = Vec::new();
    for (i, Record { line, fields: row }) in rows.enumerate() {
        if row.len() != header.len() {
            return Err(ExtractError::Syntax {
                file: file.into(),
                line,
                column: 1,
                message: format!(
                    "the row has {} fields, the header row {} (a quote not closed or not escaped?)",
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
                .map(|s| s.trim())
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
                message: "the row has no id".into(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(u32, Vec<String>)> {
        records("h.csv", text, text.contains("\\\""))
            .unwrap()
            .into_iter()
            .map(|r| (r.line, r.fields))
            .collect()
    }

    #[test]
    fn lines_count_crlf_once_and_blank_lines_too() {
        let lf = read("ID,Text\n\nR1,\"two\nlines\"\n\n\nR2,b\n");
        let crlf = read("ID,Text\r\n\r\nR1,\"two\r\nlines\"\r\n\r\n\r\nR2,b\r\n");
        assert_eq!(lf.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3, 7]);
        assert_eq!(crlf.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3, 7]);
        assert_eq!(lf[1].1, ["R1", "two\nlines"]);
    }

    #[test]
    fn a_backslash_escapes_inside_quotes_and_out() {
        let r = read("ID,Text\nR1,\"say \\\"x\\\" a\\\\b\"\nR2,a\\\\b\nR3,\"a\\\\b\"\n");
        assert_eq!(r[1].1[1], "say \"x\" a\\b");
        assert_eq!(r[2].1[1], "a\\b");
        assert_eq!(r[3].1[1], "a\\b");
        // Without a `\"` in the file, a backslash is a character like any other.
        let r = read("ID,Text\nR1,\"a\\\\b\"\nR2,a\\\\b\n");
        assert_eq!(r[1].1[1], "a\\\\b");
        assert_eq!(r[2].1[1], "a\\\\b");
    }

    #[test]
    fn an_unclosed_quote_is_located_where_it_opens() {
        let e = records("h.csv", "ID,Text\n\nR1,\"open\nR2,b\n", false)
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "h.csv:3:1: a quoted field is never closed (a `\"` without its closing `\"`)"
        );
    }
}

//! ReqIF 1.2: the SPEC-OBJECTs of a `.reqif` file with their string, XHTML and
//! enumeration values, named by the LONG-NAMEs of their attribute definitions. The id is
//! `ReqIF.ForeignID` (or an attribute named like an id), else the object's IDENTIFIER;
//! the text is `ReqIF.Text` (or an attribute named like a text), else the first string
//! or XHTML value that is not the id.

use crate::{line_col, one_line, Confidence, ExtractError, Extraction, Requirement, Source};
use roxmltree::{Document, Node};
use std::collections::HashMap;

fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn norm(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// The text of an XHTML value, its block elements separated by spaces.
fn xhtml_text(n: Node) -> String {
    let mut out = String::new();
    for d in n.descendants() {
        if d.is_text() {
            out.push_str(d.text().unwrap_or(""));
        } else if d.is_element() && matches!(d.tag_name().name(), "p" | "div" | "br" | "li") {
            out.push(' ');
        }
    }
    one_line(&out)
}

/// Reads the SPEC-OBJECTs of a ReqIF file into `x`; objects without a text value
/// (headings) are skipped with a note.
pub(crate) fn extract(file: &str, text: &str, x: &mut Extraction) -> Result<(), ExtractError> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    let doc = Document::parse_with_options(text, opts).map_err(|e| {
        let p = e.pos();
        ExtractError::Syntax {
            file: file.into(),
            line: p.row,
            column: p.col,
            message: format!("not well-formed XML: {e}")
                .replace(&format!(" at {}:{}", p.row, p.col), ""),
        }
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "REQ-IF" {
        return Err(ExtractError::Shape {
            file: file.into(),
            message: format!(
                "the root element is <{}>, not <REQ-IF>",
                root.tag_name().name()
            ),
        });
    }
    let (defs, types) = definitions(root);
    let mut record = 0u32;
    let mut headings = 0;
    for o in root
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "SPEC-OBJECT")
    {
        record += 1;
        let (line, column) = line_col(text, o.range().start);
        let ident = o
            .attribute("IDENTIFIER")
            .ok_or_else(|| ExtractError::Syntax {
                file: file.into(),
                line,
                column,
                message: "a SPEC-OBJECT without IDENTIFIER".into(),
            })?;
        let kind = child(o, "TYPE")
            .and_then(|t| t.children().find(|c| c.is_element()))
            .and_then(|r| r.text())
            .map(|t| {
                types
                    .get(t.trim())
                    .cloned()
                    .unwrap_or_else(|| t.trim().to_string())
            });
        let values = object_values(o, &defs, file, text)?;
        let source = Source {
            file: file.into(),
            line: Some(line),
            record: Some(record),
        };
        match requirement(&values, ident, kind, source) {
            Some(r) => x.requirements.push(r),
            None => headings += 1,
        }
    }
    if headings > 0 {
        x.notes.push(format!(
            "skipped {headings} SPEC-OBJECTs without a text value (headings)"
        ));
    }
    Ok(())
}

/// The long names of the attribute definitions and of the spec-object types, by
/// identifier.
fn definitions(root: Node) -> (HashMap<String, String>, HashMap<String, String>) {
    let mut defs: HashMap<String, String> = HashMap::new();
    let mut types: HashMap<String, String> = HashMap::new();
    for n in root.descendants().filter(Node::is_element) {
        let name = n.tag_name().name();
        if name.starts_with("ATTRIBUTE-DEFINITION-") && !name.ends_with("-REF") {
            if let Some(id) = n.attribute("IDENTIFIER") {
                defs.insert(
                    id.to_string(),
                    n.attribute("LONG-NAME").unwrap_or(id).to_string(),
                );
            }
        } else if name == "SPEC-OBJECT-TYPE" {
            if let (Some(id), Some(ln)) = (n.attribute("IDENTIFIER"), n.attribute("LONG-NAME")) {
                types.insert(id.to_string(), ln.to_string());
            }
        }
    }
    (defs, types)
}

/// The values of a SPEC-OBJECT as (long name, value) in document order; a value that is
/// not a string or XHTML is marked by a leading NUL.
fn object_values(
    o: Node,
    defs: &HashMap<String, String>,
    file: &str,
    text: &str,
) -> Result<Vec<(String, String)>, ExtractError> {
    let mut values: Vec<(String, String)> = Vec::new();
    let Some(vs) = child(o, "VALUES") else {
        return Ok(values);
    };
    for v in vs.children().filter(Node::is_element) {
        let tag = v.tag_name().name();
        let def = child(v, "DEFINITION")
            .and_then(|d| d.children().find(|c| c.is_element()))
            .and_then(|r| r.text())
            .map(str::trim)
            .ok_or_else(|| {
                let (l, c) = line_col(text, v.range().start);
                ExtractError::Syntax {
                    file: file.into(),
                    line: l,
                    column: c,
                    message: format!("<{tag}> without a DEFINITION reference"),
                }
            })?;
        let name = defs.get(def).cloned().unwrap_or_else(|| def.to_string());
        let value = match tag {
            "ATTRIBUTE-VALUE-XHTML" => child(v, "THE-VALUE").map(xhtml_text),
            "ATTRIBUTE-VALUE-ENUMERATION" => None,
            _ => v.attribute("THE-VALUE").map(one_line),
        };
        if let Some(value) = value.filter(|s| !s.is_empty()) {
            let is_string = matches!(tag, "ATTRIBUTE-VALUE-STRING" | "ATTRIBUTE-VALUE-XHTML");
            values.push((
                name,
                if is_string {
                    value
                } else {
                    format!("\u{0}{value}")
                },
            ));
        }
    }
    Ok(values)
}

/// The requirement of a SPEC-OBJECT from its named values (`ident` and the type's name
/// `kind` when no value gives them); `None` when it has no text (a heading).
fn requirement(
    values: &[(String, String)],
    ident: &str,
    kind: Option<String>,
    source: Source,
) -> Option<Requirement> {
    let get = |names: &[&str]| {
        values
            .iter()
            .find(|(n, _)| names.contains(&norm(n).as_str()))
            .map(|(_, v)| v.trim_start_matches('\u{0}').to_string())
    };
    let id = get(&[
        "reqifforeignid",
        "id",
        "identifier",
        "reqid",
        "requirementid",
        "foreignid",
    ])
    .unwrap_or_else(|| ident.to_string());
    let text = get(&[
        "reqiftext",
        "text",
        "description",
        "reqifdescription",
        "requirementtext",
        "objecttext",
    ])
    .or_else(|| {
        values
            .iter()
            .find(|(_, v)| !v.starts_with('\u{0}') && *v != id)
            .map(|(_, v)| v.clone())
    })?;
    Some(Requirement {
        id,
        text,
        section: get(&["reqifchaptername", "chapter", "section", "heading"]),
        kind: get(&["reqifcategory", "type", "category", "kind"]).or(kind),
        confidence: Confidence::High,
        source,
        fretish: None,
        formalization: None,
    })
}

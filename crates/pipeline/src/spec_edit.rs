//! Edits to a spec file that keep everything else byte for byte.
//!
//! [`crate::clarify::apply`] writes a whole new spec (for `vera clarify --apply -o`).
//! A review page that saves a person's decision into the file they are working on must
//! not reformat it or drop its comments: [`edit_in_place`] changes only the `text`,
//! `formula`, `origin` and `accepted` keys of the edited requirements' tables (a note
//! goes in a comment line above the table), through a format-preserving TOML editor.
//! [`Edit::from_proposal`] maps an accepted clarification the way
//! [`crate::clarify::apply`] does (its text, its converged formula, `model-accepted`).
//!
//! The file's own conventions are kept too: a UTF-8 byte order mark, its line endings
//! (every unchanged line keeps its own, a new or changed line takes the file's usual
//! one, CRLF or LF) and whether it ends with a newline. The TOML editor works on the
//! text without them ([`keeping_layout`]).

use crate::clarify::Proposal;
use reqs::spec::Origin;
use toml_edit::{DocumentMut, Item, Value};

/// One requirement's new wording and formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The requirement id.
    pub id: String,
    /// The new text.
    pub text: String,
    /// The new formula (`None`: keep the current one).
    pub formula: Option<String>,
    /// Who wrote the formula now.
    pub origin: Origin,
    /// A comment line placed above the requirement (without `#`).
    pub note: Option<String>,
}

/// Why an edit cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    /// The file is not TOML.
    #[error("the spec is not valid TOML: {0}")]
    Toml(String),
    /// No `[[requirements]]` table has the id.
    #[error("no requirement `{0}` in the spec")]
    UnknownId(String),
    /// Two tables have the id.
    #[error("requirement `{0}` appears more than once in the spec")]
    DuplicateId(String),
    /// A timed requirement's pattern cannot be edited here.
    #[error(
        "requirement `{0}` is timed: its pattern is edited in the file (or with `vera clarify`)"
    )]
    Timed(String),
    /// An empty text or formula.
    #[error("requirement `{id}`: {what} is empty")]
    Empty {
        /// The requirement.
        id: String,
        /// `text` or `formula`.
        what: &'static str,
    },
}

impl Edit {
    /// The edit an accepted clarification makes, as [`crate::clarify::apply`] makes it:
    /// the clarified text, the converged formula (the old one when there is none), and
    /// `model-accepted` when the formula came with the proposal.
    pub fn from_proposal(p: &Proposal, current: Origin) -> Edit {
        Edit {
            id: p.id.clone(),
            text: p.clarified.clone(),
            formula: p.formula.clone(),
            origin: if p.formula.is_some() {
                Origin::ModelAccepted
            } else {
                current
            },
            note: Some(format!(
                "clarified by vera in {} rounds ({} -> {} readings); was: {}",
                p.rounds, p.classes_before, p.classes_after, p.original
            )),
        }
    }
}

/// A review of a finding to record (a `[[reviews]]` table, docs/spec-format.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReview {
    /// The requirement's id.
    pub requirement: String,
    /// The finding: one of `reqs::spec::REVIEWABLE`.
    pub finding: String,
    /// Why it stays as it is.
    pub reason: String,
    /// Who reviewed it.
    pub reviewed_by: String,
    /// When (`YYYY-MM-DD`).
    pub date: String,
}

/// The spec text with a `[[reviews]]` table appended; every byte before it as it was.
/// The values are TOML strings (quotes, newlines and control characters escaped); the
/// caller reads the result back with the spec reader, which checks the fields.
pub fn add_review(source: &str, r: &NewReview) -> Result<String, EditError> {
    keeping_layout(source, |s| append_review(s, r))
}

fn append_review(source: &str, r: &NewReview) -> Result<String, EditError> {
    source
        .parse::<DocumentMut>()
        .map_err(|e| EditError::Toml(e.to_string()))?;
    let mut out = source.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("\n[[reviews]]\n");
    for (k, v) in [
        ("requirement", &r.requirement),
        ("finding", &r.finding),
        ("reason", &r.reason),
        ("reviewed_by", &r.reviewed_by),
        ("date", &r.date),
    ] {
        out.push_str(&format!("{k} = {}\n", Value::from(v.as_str())));
    }
    Ok(out)
}

/// The spec text with the edits made; every other byte as it was.
pub fn edit_in_place(source: &str, edits: &[Edit]) -> Result<String, EditError> {
    keeping_layout(source, |s| edit_lf(s, edits))
}

/// The formula of requirement `id` as written in the file (the string value of its
/// `formula` key, line breaks as LF), or `None` when the spec does not read or the
/// requirement has no formula. An edit form shows this, not a re-printed term.
pub fn written_formula(source: &str, id: &str) -> Option<String> {
    let (_, body) = split_bom(source);
    let doc: DocumentMut = body.replace("\r\n", "\n").parse().ok()?;
    let formula = doc
        .get("requirements")?
        .as_array_of_tables()?
        .iter()
        .find(|t| t.get("id").and_then(Item::as_str) == Some(id))?
        .get("formula")?
        .as_str()
        .map(str::to_string);
    formula
}

fn split_bom(source: &str) -> (&str, &str) {
    match source.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", source),
    }
}

/// Runs `edit` on `source` without its byte order mark and with LF line endings, and
/// gives the result the source's layout back: the byte order mark, each unchanged
/// line's own ending (a line diff of the two LF texts finds them), a changed line the
/// ending of the line it replaces, the file's usual ending on new lines, and a final
/// newline only where there was one.
pub fn keeping_layout(
    source: &str,
    edit: impl FnOnce(&str) -> Result<String, EditError>,
) -> Result<String, EditError> {
    let (bom, body) = split_bom(source);
    let old_lines: Vec<&str> = body.split_inclusive('\n').collect();
    let lf_lines: Vec<String> = old_lines
        .iter()
        .map(|l| match l.strip_suffix("\r\n") {
            Some(x) => format!("{x}\n"),
            None => l.to_string(),
        })
        .collect();
    let new = edit(&lf_lines.concat())?;
    let crlf = old_lines.iter().filter(|l| l.ends_with("\r\n")).count();
    let lf = old_lines.iter().filter(|l| l.ends_with('\n')).count() - crlf;
    let eol = if crlf > lf { "\r\n" } else { "\n" };
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let old_keys: Vec<&str> = lf_lines.iter().map(String::as_str).collect();
    let mut out = String::with_capacity(source.len() + new.len() / 8);
    out.push_str(bom);
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_keys, &new_lines) {
        match op {
            similar::DiffOp::Equal { old_index, len, .. } => {
                for l in &old_lines[old_index..old_index + len] {
                    out.push_str(l);
                }
            }
            similar::DiffOp::Delete { .. } => {}
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for l in &new_lines[new_index..new_index + new_len] {
                    push_line(&mut out, l, eol);
                }
            }
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                // A changed line keeps the ending of the line it replaces.
                for (i, l) in new_lines[new_index..new_index + new_len].iter().enumerate() {
                    let own = (i < old_len)
                        .then(|| old_lines[old_index + i])
                        .and_then(|o| ["\r\n", "\n"].into_iter().find(|e| o.ends_with(e)));
                    push_line(&mut out, l, own.unwrap_or(eol));
                }
            }
        }
    }
    // No final newline in the file: none added (an unchanged last line has none).
    if !body.is_empty() && !body.ends_with('\n') {
        if let Some(x) = out.strip_suffix(eol) {
            out.truncate(x.len());
        }
    }
    Ok(out)
}

/// `line` (which may end with LF) with `eol` as its ending.
fn push_line(out: &mut String, line: &str, eol: &str) {
    match line.strip_suffix('\n') {
        Some(x) => {
            out.push_str(x);
            out.push_str(eol);
        }
        None => out.push_str(line),
    }
}

fn edit_lf(source: &str, edits: &[Edit]) -> Result<String, EditError> {
    let mut doc: DocumentMut = source
        .parse()
        .map_err(|e: toml_edit::TomlError| EditError::Toml(e.to_string()))?;
    let Some(reqs) = doc
        .get_mut("requirements")
        .and_then(Item::as_array_of_tables_mut)
    else {
        return match edits.first() {
            Some(e) => Err(EditError::UnknownId(e.id.clone())),
            None => Ok(source.to_string()),
        };
    };
    for e in edits {
        if e.text.trim().is_empty() {
            return Err(EditError::Empty {
                id: e.id.clone(),
                what: "text",
            });
        }
        if e.formula.as_deref().is_some_and(|f| f.trim().is_empty()) {
            return Err(EditError::Empty {
                id: e.id.clone(),
                what: "formula",
            });
        }
        match reqs
            .iter()
            .filter(|t| t.get("id").and_then(Item::as_str) == Some(e.id.as_str()))
            .count()
        {
            0 => return Err(EditError::UnknownId(e.id.clone())),
            1 => {}
            _ => return Err(EditError::DuplicateId(e.id.clone())),
        }
    }
    for e in edits {
        let table = reqs
            .iter_mut()
            .find(|t| t.get("id").and_then(Item::as_str) == Some(e.id.as_str()))
            .ok_or_else(|| EditError::UnknownId(e.id.clone()))?;
        if table.contains_key("timed") && e.formula.is_some() {
            return Err(EditError::Timed(e.id.clone()));
        }
        set(table, "text", &e.text);
        if let Some(f) = &e.formula {
            set(table, "formula", f);
        }
        match e.origin {
            Origin::Hand => {
                table.remove("origin");
                table.remove("accepted");
            }
            Origin::Model => {
                set(table, "origin", "model");
                table.remove("accepted");
            }
            Origin::ModelAccepted => {
                set(table, "origin", "model");
                table.insert("accepted", toml_edit::value(true));
            }
        }
        if let Some(note) = &e.note {
            let decor = table.decor_mut();
            let old = prefix_text(decor);
            let line: String = note
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            decor.set_prefix(format!("{old}# {line}\n"));
        }
    }
    Ok(doc.to_string())
}

/// What stands above a table's header (comments and blank lines), as text.
pub(crate) fn prefix_text(decor: &toml_edit::Decor) -> String {
    decor
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or("")
        .to_string()
}

/// Sets `key` to a string, keeping the key's place and the whitespace around its value.
pub(crate) fn set(table: &mut toml_edit::Table, key: &str, text: &str) {
    match table.get_mut(key).and_then(Item::as_value_mut) {
        Some(v) => {
            let decor = v.decor().clone();
            *v = Value::from(text);
            *v.decor_mut() = decor;
        }
        None => {
            table.insert(key, toml_edit::value(text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "# my notes\n[spec]\nname = \"x\"\n\n[[requirements]]\nid = \"R1\"\n# keep me\ntext = \"old\"\nformula = \"(> a 1)\" # trailing\n\n[[requirements]]\nid = \"R2\"\ntext = \"two\"\norigin = \"model\"\nformula = \"(< a 5)\"\n";

    fn edit(id: &str, text: &str, formula: Option<&str>, origin: Origin) -> Edit {
        Edit {
            id: id.into(),
            text: text.into(),
            formula: formula.map(str::to_string),
            origin,
            note: None,
        }
    }

    #[test]
    fn only_the_edited_values_change() {
        let out = edit_in_place(
            SPEC,
            &[edit("R1", "new \"quoted\"", Some("(> a 2)"), Origin::Hand)],
        )
        .unwrap();
        let want = SPEC
            .replace("text = \"old\"", "text = 'new \"quoted\"'")
            .replace("(> a 1)", "(> a 2)");
        assert_eq!(out, want);
    }

    #[test]
    fn origin_and_note() {
        let mut e = edit("R2", "two, clearer", None, Origin::ModelAccepted);
        e.note = Some("clarified\nby a person".into());
        let out = edit_in_place(SPEC, &[e]).unwrap();
        assert!(
            out.contains("# clarified by a person\n[[requirements]]\nid = \"R2\""),
            "{out}"
        );
        assert!(out.contains("accepted = true"), "{out}");
        assert!(out.contains("formula = \"(< a 5)\""), "{out}");
        assert!(out.starts_with("# my notes\n"));
        let back = edit_in_place(&out, &[edit("R2", "two", None, Origin::Hand)]).unwrap();
        assert!(
            !back.contains("origin") && !back.contains("accepted"),
            "{back}"
        );
    }

    #[test]
    fn review_appended_and_read_back() {
        let r = NewReview {
            requirement: "R1".into(),
            finding: "redundant".into(),
            reason: "kept \"on purpose\"\nsecond line".into(),
            reviewed_by: "J. T".into(),
            date: "2026-12-04".into(),
        };
        let out = add_review(SPEC, &r).unwrap();
        assert!(out.starts_with(SPEC));
        let doc: DocumentMut = out.parse().unwrap();
        let t = &doc["reviews"][0];
        assert_eq!(
            t["reason"].as_str(),
            Some("kept \"on purpose\"\nsecond line")
        );
        assert_eq!(t["requirement"].as_str(), Some("R1"));
    }

    #[test]
    fn refusals() {
        assert_eq!(
            edit_in_place(SPEC, &[edit("R9", "t", None, Origin::Hand)]),
            Err(EditError::UnknownId("R9".into()))
        );
        let twice = format!("{SPEC}\n[[requirements]]\nid = \"R1\"\ntext = \"again\"\n");
        assert_eq!(
            edit_in_place(&twice, &[edit("R1", "t", None, Origin::Hand)]),
            Err(EditError::DuplicateId("R1".into()))
        );
        assert!(matches!(
            edit_in_place(SPEC, &[edit("R1", " ", None, Origin::Hand)]),
            Err(EditError::Empty { .. })
        ));
        assert!(matches!(edit_in_place("[[x", &[]), Err(EditError::Toml(_))));
    }

    /// SPEC with each line ending as `ends` says (CRLF where true), an optional byte
    /// order mark and an optional final newline.
    fn laid_out(bom: bool, ends: &[bool], final_newline: bool) -> String {
        let lines: Vec<&str> = SPEC.lines().collect();
        let mut out = String::from(if bom { "\u{feff}" } else { "" });
        for (i, l) in lines.iter().enumerate() {
            out.push_str(l);
            if i + 1 < lines.len() || final_newline {
                out.push_str(if ends[i % ends.len()] { "\r\n" } else { "\n" });
            }
        }
        out
    }

    #[test]
    fn crlf_bom_and_no_final_newline_are_kept() {
        let src = laid_out(true, &[true], false);
        let out = edit_in_place(
            &src,
            &[edit("R2", "two, edited", Some("(< a 6)"), Origin::Model)],
        )
        .unwrap();
        let want = src
            .replace("text = \"two\"", "text = \"two, edited\"")
            .replace("(< a 5)", "(< a 6)");
        assert_eq!(out, want);
        // A review is appended with the file's endings, and no final newline added.
        let r = NewReview {
            requirement: "R1".into(),
            finding: "redundant".into(),
            reason: "why".into(),
            reviewed_by: "me".into(),
            date: "2024-02-29".into(),
        };
        let out = add_review(&src, &r).unwrap();
        assert!(out.starts_with(&src), "{out:?}");
        assert!(out.starts_with('\u{feff}'));
        assert!(!out.ends_with('\n'), "{out:?}");
        assert_eq!(
            out.matches('\n').count(),
            out.matches("\r\n").count(),
            "{out:?}"
        );
        // LF files stay LF, and keep their final newline.
        let lf = laid_out(false, &[false], true);
        let out = edit_in_place(&lf, &[edit("R1", "new", None, Origin::Hand)]).unwrap();
        assert_eq!(out, lf.replace("text = \"old\"", "text = \"new\""));
    }

    #[test]
    fn the_formula_as_written() {
        let src = "[[requirements]]\r\nid = \"R1\"\r\ntext = \"t\"\r\nformula = \"\"\"\r\n(and (> a (- 5))\r\n     (< a 9))\"\"\"\r\n";
        assert_eq!(
            written_formula(src, "R1").as_deref(),
            Some("(and (> a (- 5))\n     (< a 9))")
        );
        assert_eq!(written_formula(src, "R2"), None);
        assert_eq!(written_formula("[[x", "R1"), None);
        // An edit of the text alone leaves the formula's lines as they are.
        let out = edit_in_place(src, &[edit("R1", "new", None, Origin::Hand)]).unwrap();
        assert_eq!(out, src.replace("text = \"t\"", "text = \"new\""));
    }

    proptest::proptest! {
        /// Whatever the line endings, byte order mark and final newline, an edit of a
        /// requirement's text changes that line's text and no other byte.
        #[test]
        fn an_edit_changes_no_other_byte(
            bom: bool,
            ends in proptest::collection::vec(proptest::bool::ANY, 1..20),
            final_newline: bool,
            text in "[a-z][a-z ]{0,19}",
        ) {
            let src = laid_out(bom, &ends, final_newline);
            let out = edit_in_place(&src, &[edit("R1", &text, None, Origin::Hand)]).unwrap();
            let want = src.replace("text = \"old\"", &format!("text = \"{text}\""));
            proptest::prop_assert_eq!(out, want);
        }
    }
}

//! Adding an accepted exception to an `exceptions.toml` file (see `bl::exceptions`).
//!
//! [`add_exception`] returns the new text of the whole file: the existing text byte for
//! byte (comments and layout included), then one `[[exception]]` table written by the
//! `toml` serializer, so quotes, backslashes, newlines and any other character in the
//! reason are escaped as TOML requires. The result is read back with
//! `bl::exceptions::parse` before it is returned: text that reader refuses is an error,
//! never a file to write.
//!
//! [`suggested_assume`] and [`suggested_id`] give a starting point for an exception
//! that accepts one divergence region of a consistency report.

use bl::check::Region;
use serde::Serialize;

/// Longest accepted `assume` term, in bytes.
pub const MAX_ASSUME_BYTES: usize = 64 * 1024;

/// Longest accepted id, reason, `accepted_by` or `cases` text, in bytes.
pub const MAX_FIELD_BYTES: usize = 16 * 1024;

/// Deepest accepted nesting of an `assume` term.
pub const MAX_ASSUME_DEPTH: usize = 200;

/// An exception to add, as entered by the reviewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewException {
    /// Its name: one word, not used by another entry of the file.
    pub id: String,
    /// The cases it applies to (a glob, see `bl::exceptions::Exception::cases`); empty
    /// means every case (`*`).
    pub cases: String,
    /// The predicate added to the input constraints, in SMT-LIB (e.g. from
    /// [`suggested_assume`]).
    pub assume: String,
    /// Why it is accepted.
    pub reason: String,
    /// Who accepted it.
    pub accepted_by: String,
    /// When, `YYYY-MM-DD`.
    pub date: String,
}

/// Why an exception cannot be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExceptionsEditError {
    /// The existing file is not a valid exceptions file; it is left as it is.
    #[error("the existing exceptions file cannot be read: {0}")]
    Existing(String),
    /// The id is empty or not one word.
    #[error("the id must be one word (letters, digits, `_`, `-`, `.`), found `{}`", bl::diag::quote(.0))]
    BadId(String),
    /// The id is already used in the file.
    #[error("the id `{}` is already used in the file", bl::diag::quote(.0))]
    DuplicateId(String),
    /// A required field is empty.
    #[error("`{0}` is empty")]
    Empty(&'static str),
    /// A field is longer than [`MAX_FIELD_BYTES`] (or the term than [`MAX_ASSUME_BYTES`]).
    #[error("`{0}` is too long")]
    TooLong(&'static str),
    /// The date is not a calendar date written `YYYY-MM-DD`.
    #[error("the date must be YYYY-MM-DD, found `{}`", bl::diag::quote(.0))]
    BadDate(String),
    /// `assume` is not one SMT-LIB term.
    #[error("`assume` is not an SMT-LIB term: {0}")]
    BadAssume(String),
    /// The entry could not be written as TOML.
    #[error("cannot write the entry as TOML: {0}")]
    Serialize(String),
    /// The new text does not read back as an exceptions file (nothing is written).
    #[error("the new file does not read back: {0}")]
    Verify(String),
}

/// The entry as written to the file (the field order of the format's documentation).
#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    cases: &'a str,
    assume: &'a str,
    reason: &'a str,
    accepted_by: &'a str,
    date: &'a str,
}

#[derive(Serialize)]
struct Tables<'a> {
    exception: Vec<Entry<'a>>,
}

/// The name under which the text is parsed in messages.
const FILE: &str = bl::exceptions::FILE_NAME;

/// Returns the full text of the exceptions file with `e` appended as one
/// `[[exception]]` table. `existing` is the current text of the file (`None` when
/// there is no file yet); it is kept byte for byte at the start of the result.
///
/// Refused: an existing text that is not a valid exceptions file, an id that is not
/// one word or is already used, an empty `assume`, `reason` or `accepted_by`, a date
/// that is not a calendar date written `YYYY-MM-DD`, an `assume` that is not exactly
/// one SMT-LIB term, and any result that `bl::exceptions::parse` does not read back
/// with the new entry exactly as given.
pub fn add_exception(
    existing: Option<&str>,
    e: &NewException,
) -> Result<String, ExceptionsEditError> {
    let existing = existing.unwrap_or("");
    let before = bl::exceptions::parse(FILE, existing)
        .map_err(|err| ExceptionsEditError::Existing(err.to_string()))?;
    for (what, v) in [
        ("id", &e.id),
        ("cases", &e.cases),
        ("reason", &e.reason),
        ("accepted_by", &e.accepted_by),
        ("date", &e.date),
    ] {
        if v.len() > MAX_FIELD_BYTES {
            return Err(ExceptionsEditError::TooLong(what));
        }
    }
    if e.assume.len() > MAX_ASSUME_BYTES {
        return Err(ExceptionsEditError::TooLong("assume"));
    }
    if !is_id(&e.id) {
        return Err(ExceptionsEditError::BadId(e.id.clone()));
    }
    if before.iter().any(|x| x.id == e.id) {
        return Err(ExceptionsEditError::DuplicateId(e.id.clone()));
    }
    for (what, v) in [
        ("assume", &e.assume),
        ("reason", &e.reason),
        ("accepted_by", &e.accepted_by),
    ] {
        if v.trim().is_empty() {
            return Err(ExceptionsEditError::Empty(what));
        }
    }
    if !reqs::spec::is_calendar_date(&e.date) {
        return Err(ExceptionsEditError::BadDate(e.date.clone()));
    }
    check_term(&e.assume)?;
    let cases = if e.cases.trim().is_empty() {
        "*"
    } else {
        e.cases.as_str()
    };
    let table = toml::to_string(&Tables {
        exception: vec![Entry {
            id: &e.id,
            cases,
            assume: &e.assume,
            reason: &e.reason,
            accepted_by: &e.accepted_by,
            date: &e.date,
        }],
    })
    .map_err(|err| ExceptionsEditError::Serialize(err.to_string()))?;
    let mut out = String::with_capacity(existing.len() + table.len() + 2);
    out.push_str(existing);
    if !existing.is_empty() {
        if !existing.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&table);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // Read back: the file must parse, keep every earlier entry, and hold the new one
    // exactly as given.
    let after = bl::exceptions::parse(FILE, &out)
        .map_err(|err| ExceptionsEditError::Verify(err.to_string()))?;
    let added = after.last().filter(|_| after.len() == before.len() + 1);
    let same = added.is_some_and(|a| {
        a.id == e.id
            && a.cases == cases
            && a.assume == e.assume
            && a.reason == e.reason
            && a.accepted_by == e.accepted_by
            && a.date == e.date
    }) && after.iter().zip(&before).all(|(a, b)| a == b);
    if !same {
        return Err(ExceptionsEditError::Verify(
            "the entry read back differs from the one written".into(),
        ));
    }
    Ok(out)
}

/// One word of letters, digits, `_`, `-` and `.` (what an assumption name looks like
/// in reports and on the command line).
fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `assume` must be exactly one SMT-LIB term: an s-expression that reads completely,
/// not too deep, and not a keyword or a string. (Whether its names exist is checked by
/// the consistency check, which knows the case's inputs.)
fn check_term(text: &str) -> Result<(), ExceptionsEditError> {
    let sexp = logic::sexp::read_one(text).map_err(|ds| {
        let file = logic::SourceFile::new("assume", text);
        let located = file.locate_all(&ds);
        ExceptionsEditError::BadAssume(bl::diag::message(&located.to_string()))
    })?;
    if sexp.depth() > MAX_ASSUME_DEPTH {
        return Err(ExceptionsEditError::BadAssume(format!(
            "nested deeper than {MAX_ASSUME_DEPTH} levels"
        )));
    }
    match &sexp.kind {
        logic::sexp::SexpKind::List(items) if items.is_empty() => {
            Err(ExceptionsEditError::BadAssume("`()` is not a term".into()))
        }
        logic::sexp::SexpKind::List(_) | logic::sexp::SexpKind::Symbol(_) => Ok(()),
        _ => Err(ExceptionsEditError::BadAssume(
            "expected a predicate such as (< bl.sin 900000000)".into(),
        )),
    }
}

/// The predicate that excludes a divergence region: `(not R)` where `R` is the
/// region's SMT-LIB term ([`Region::smt`]).
///
/// The region's term names inputs with their side's prefix (`bl.income`, `nl.Income`),
/// which is one of the forms an exception's `assume` accepts (the other, unqualified
/// names, works only for a name on one side), so the term is used as it is. A region
/// already written `(not X)` gives `X`.
pub fn suggested_assume(region: &Region) -> String {
    let smt = region.smt.trim();
    if let Ok(e) = logic::sexp::read_one(smt) {
        if let Some([head, inner]) = e.as_list() {
            if head.as_symbol() == Some("not") {
                if let Some(inner_text) = smt.get(inner.span.start..inner.span.end) {
                    return inner_text.to_string();
                }
            }
        }
    }
    format!("(not {smt})")
}

/// An id for an exception that accepts `region`: `<input>_exception`, after the input
/// of the region's last condition (else the first input its term names), e.g.
/// `sin_exception` for `0 < income <= 57375, sin >= 9000000000`; `exception` when it
/// names none. Made unique against `taken` with a numeric suffix (`sin_exception_2`).
pub fn suggested_id(region: &Region, taken: &[String]) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut push = |raw: &str| {
        let word: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let word = word.trim_matches('_').to_ascii_lowercase();
        if !word.is_empty() && !names.contains(&word) && names.len() < 3 {
            names.push(word);
        }
    };
    if let Ok(e) = logic::sexp::read_one(&region.smt) {
        let mut stack = vec![&e];
        let mut symbols = Vec::new();
        while let Some(e) = stack.pop() {
            match &e.kind {
                logic::sexp::SexpKind::Symbol(s) => symbols.push((e.span.start, s.clone())),
                logic::sexp::SexpKind::List(items) => stack.extend(items.iter()),
                _ => {}
            }
        }
        symbols.sort();
        for (_, s) in symbols {
            if let Some(n) = s.strip_prefix("bl.").or_else(|| s.strip_prefix("nl.")) {
                push(n);
            }
        }
    }
    // The input with the last condition is usually what singles the region out (the
    // SIN in `0 < income <= 57375, sin >= 9000000000`): name it first.
    if let Some(last) = region.conditions.last().and_then(|c| {
        names
            .iter()
            .position(|n| c.to_ascii_lowercase().contains(n.as_str()))
    }) {
        let n = names.remove(last);
        names.insert(0, n);
    }
    names.truncate(1);
    let base = match names.first() {
        Some(n) => format!("{n}_exception"),
        None => "exception".to_string(),
    };
    if !taken.contains(&base) {
        return base;
    }
    (2..)
        .map(|k| format!("{base}_{k}"))
        .find(|c| !taken.iter().any(|t| t == c))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> NewException {
        NewException {
            id: "sin_exception".into(),
            cases: "cra-25/*".into(),
            assume: "(< bl.sin 900000000)".into(),
            reason: "temporary workers taxed elsewhere".into(),
            accepted_by: "J. Tremblay".into(),
            date: "2026-11-02".into(),
        }
    }

    fn region(smt: &str, conditions: &[&str]) -> Region {
        Region {
            everywhere: Some(true),
            conditions: conditions.iter().map(|c| c.to_string()).collect(),
            example: Default::default(),
            nl_output: "1".into(),
            bl_output: "0".into(),
            difference: "-1".into(),
            note: None,
            smt: smt.into(),
            difference_kind: bl::check::DifferenceKind::Linear,
            range: None,
            witnesses: Vec::new(),
        }
    }

    #[test]
    fn a_new_file_round_trips() {
        let text = add_exception(None, &entry()).unwrap();
        let read = bl::exceptions::parse("x", &text).unwrap();
        assert_eq!(read.len(), 1);
        let e = &read[0];
        assert_eq!(e.id, "sin_exception");
        assert_eq!(e.cases, "cra-25/*");
        assert_eq!(e.assume, "(< bl.sin 900000000)");
        assert_eq!(e.reason, "temporary workers taxed elsewhere");
        assert_eq!(e.accepted_by, "J. Tremblay");
        assert_eq!(e.date, "2026-11-02");
        assert!(text.starts_with("[[exception]]\n"), "{text}");
        // An empty pattern means every case.
        let mut all = entry();
        all.cases = "  ".into();
        let read = bl::exceptions::parse("x", &add_exception(Some(""), &all).unwrap()).unwrap();
        assert_eq!(read[0].cases, "*");
    }

    #[test]
    fn awkward_text_is_escaped_by_the_serializer() {
        let mut e = entry();
        e.reason = "He said \"no\"\\\nthen <script>alert('x')</script>\t\u{7}'''\"\"\" done".into();
        e.accepted_by = "Zoë \"Z\" O'Brien\r\n[[exception]]".into();
        e.cases = "a\"b/*".into();
        let text = add_exception(None, &e).unwrap();
        let read = bl::exceptions::parse("x", &text).unwrap();
        assert_eq!(read.len(), 1, "{text}");
        assert_eq!(read[0].reason, e.reason);
        assert_eq!(read[0].accepted_by, e.accepted_by);
        assert_eq!(read[0].cases, e.cases);
        // The injected table header stayed inside a string.
        assert_eq!(
            text.matches("\n[[exception]]").count() + 1,
            text.matches("[[exception]]").count()
        );
    }

    #[test]
    fn existing_text_is_kept_byte_for_byte() {
        let existing = "# Accepted exceptions of the CRA dataset.\r\n\n[[exception]]\nid = \"old\"  # first one\nassume = \"(> bl.income 0)\"\nreason = \"why\"\naccepted_by = \"A\"\ndate = \"2024-02-29\"\n# trailing comment, no newline";
        let text = add_exception(Some(existing), &entry()).unwrap();
        assert!(text.starts_with(existing));
        assert_eq!(&text[existing.len()..existing.len() + 2], "\n\n");
        let read = bl::exceptions::parse("x", &text).unwrap();
        assert_eq!(
            read.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["old", "sin_exception"]
        );
        // A second addition keeps the first one's text too.
        let mut e2 = entry();
        e2.id = "sin_exception_2".into();
        let again = add_exception(Some(&text), &e2).unwrap();
        assert!(again.starts_with(&text));
    }

    #[test]
    fn bad_entries_are_refused() {
        let existing = add_exception(None, &entry()).unwrap();
        type Edit = Box<dyn Fn(&mut NewException)>;
        let cases: Vec<(Edit, &str)> = vec![
            (Box::new(|e| e.reason = " \n".into()), "`reason` is empty"),
            (
                Box::new(|e| e.accepted_by = String::new()),
                "`accepted_by` is empty",
            ),
            (Box::new(|e| e.assume = " ".into()), "`assume` is empty"),
            (Box::new(|e| e.date = "2026-2-1".into()), "YYYY-MM-DD"),
            (Box::new(|e| e.date = "2025-02-29".into()), "YYYY-MM-DD"),
            (Box::new(|e| e.date = "2026-13-01".into()), "YYYY-MM-DD"),
            (Box::new(|e| e.date = "２０２６-11-02".into()), "YYYY-MM-DD"),
            (Box::new(|e| e.id = "two words".into()), "one word"),
            (Box::new(|e| e.id = String::new()), "one word"),
            (
                Box::new(|e| e.assume = "(< bl.sin 9".into()),
                "not an SMT-LIB term",
            ),
            (
                Box::new(|e| e.assume = "(< a 1) (> a 0)".into()),
                "not an SMT-LIB term",
            ),
            (
                Box::new(|e| e.assume = "\"text\"".into()),
                "not an SMT-LIB term",
            ),
            (Box::new(|e| e.assume = "()".into()), "not an SMT-LIB term"),
            (
                Box::new(|e| e.assume = format!("{}x{}", "(".repeat(300), ")".repeat(300))),
                "not an SMT-LIB term",
            ),
        ];
        for (edit, what) in cases {
            let mut e = entry();
            e.id = "fresh".into();
            edit(&mut e);
            let err = add_exception(Some(&existing), &e).unwrap_err().to_string();
            assert!(err.contains(what), "{what}: {err}");
        }
        let err = add_exception(Some(&existing), &entry()).unwrap_err();
        assert_eq!(
            err,
            ExceptionsEditError::DuplicateId("sin_exception".into())
        );
        let err = add_exception(Some("[[exception]]\nid = 3\n"), &entry()).unwrap_err();
        assert!(matches!(err, ExceptionsEditError::Existing(_)), "{err}");
        let err = add_exception(Some("not toml ="), &entry()).unwrap_err();
        assert!(matches!(err, ExceptionsEditError::Existing(_)), "{err}");
    }

    #[test]
    fn suggestions_for_a_region() {
        let r = region(
            "(and (<= bl.income 57375.0) (> bl.income 0.0) (>= bl.sin 9000000000.0))",
            &["0 < income <= 57375", "sin >= 9000000000"],
        );
        let assume = suggested_assume(&r);
        assert_eq!(
            assume,
            "(not (and (<= bl.income 57375.0) (> bl.income 0.0) (>= bl.sin 9000000000.0)))"
        );
        assert_eq!(suggested_id(&r, &[]), "sin_exception");
        assert_eq!(
            suggested_id(&r, &["sin_exception".into(), "sin_exception_2".into()]),
            "sin_exception_3"
        );
        let not = region("(not (>= nl.Income 5))", &["Income < 5"]);
        assert_eq!(suggested_assume(&not), "(>= nl.Income 5)");
        assert_eq!(suggested_id(&not, &[]), "income_exception");
        // The suggestion is accepted as it is.
        let mut e = entry();
        e.assume = assume;
        e.id = suggested_id(&r, &[]);
        let text = add_exception(None, &e).unwrap();
        assert_eq!(
            bl::exceptions::parse("x", &text).unwrap()[0].assume,
            e.assume
        );
    }
}

//! JUnit XML rendering of [`Suite`]s.
//!
//! [`render`] writes the de facto JUnit report format that CI test dashboards read: one
//! `<testsuites>` element with the totals, one `<testsuite>` per [`Suite`] with its own
//! counts, and one `<testcase>` per [`Case`]. A failed case carries a `<failure>`, an
//! undecided one an `<error>`, a skipped one a `<skipped>`; a case's output goes into
//! `<system-out>`.
//!
//! Every attribute and text is escaped. Characters that XML 1.0 does not allow at all
//! (the C0 controls other than tab, line feed and carriage return, and U+FFFE, U+FFFF)
//! are replaced: a control character by its Unicode "control picture" (U+0000 becomes
//! `␀`, U+0007 `␇`), the two noncharacters by U+FFFD.

use std::fmt::Write as _;

use crate::{Case, Outcome, Suite};

/// Counts of one suite or of all of them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Totals {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    seconds: f64,
}

impl Totals {
    fn of(cases: &[Case]) -> Totals {
        let mut t = Totals::default();
        for c in cases {
            t.tests += 1;
            match c.outcome {
                Outcome::Passed => {}
                Outcome::Failed { .. } => t.failures += 1,
                Outcome::Error { .. } => t.errors += 1,
                Outcome::Skipped { .. } => t.skipped += 1,
            }
            t.seconds += seconds(c.seconds);
        }
        t
    }

    fn add(&mut self, o: Totals) {
        self.tests += o.tests;
        self.failures += o.failures;
        self.errors += o.errors;
        self.skipped += o.skipped;
        self.seconds += o.seconds;
    }

    /// The counting attributes, with a leading space.
    fn attrs(&self) -> String {
        format!(
            " tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\"",
            self.tests,
            self.failures,
            self.errors,
            self.skipped,
            time(self.seconds)
        )
    }
}

/// A measured time, or 0 when unknown or not a sensible number.
fn seconds(s: Option<f64>) -> f64 {
    match s {
        Some(s) if s.is_finite() && s > 0.0 => s,
        _ => 0.0,
    }
}

/// Seconds with millisecond precision, as JUnit readers expect.
fn time(s: f64) -> String {
    format!("{s:.3}")
}

/// Renders `suites` as one JUnit XML document (UTF-8, with an XML declaration).
pub fn render(suites: &[Suite]) -> String {
    let mut total = Totals::default();
    let mut body = String::new();
    for suite in suites {
        let t = Totals::of(&suite.cases);
        total.add(t);
        // Writing into a String cannot fail.
        let _ = writeln!(
            body,
            "  <testsuite name=\"{}\"{}>",
            attr(&suite.name),
            t.attrs()
        );
        for case in &suite.cases {
            write_case(&mut body, case, suite.file.as_deref());
        }
        body.push_str("  </testsuite>\n");
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"vera\"{}>", total.attrs());
    out.push_str(&body);
    out.push_str("</testsuites>\n");
    out
}

/// Writes one `<testcase>` element.
fn write_case(out: &mut String, case: &Case, file: Option<&str>) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
        attr(&case.name),
        attr(&case.class),
        time(seconds(case.seconds))
    );
    if let Some(f) = file {
        let _ = write!(out, " file=\"{}\"", attr(f));
    }
    let empty = matches!(case.outcome, Outcome::Passed) && case.output.is_none();
    if empty {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n");
    match &case.outcome {
        Outcome::Passed => {}
        Outcome::Failed { message, detail } => {
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"failure\">{}</failure>",
                attr(message),
                text(detail)
            );
        }
        Outcome::Error { message, detail } => {
            let _ = writeln!(
                out,
                "      <error message=\"{}\" type=\"error\">{}</error>",
                attr(message),
                text(detail)
            );
        }
        Outcome::Skipped { message } => {
            let _ = writeln!(out, "      <skipped message=\"{}\"/>", attr(message));
        }
    }
    if let Some(o) = &case.output {
        let _ = writeln!(out, "      <system-out>{}</system-out>", text(o));
    }
    out.push_str("    </testcase>\n");
}

/// What a character that XML 1.0 forbids is written as, if `c` is one.
fn replacement(c: char) -> Option<char> {
    match c {
        '\t' | '\n' | '\r' => None,
        '\u{0}'..='\u{1F}' => char::from_u32(0x2400 + c as u32),
        '\u{FFFE}' | '\u{FFFF}' => Some('\u{FFFD}'),
        _ => None,
    }
}

/// Escapes `s` for element content.
///
/// `>` is escaped too, so `]]>` can never appear; a carriage return is written as a
/// character reference so that line-end normalization keeps it.
pub fn text(s: &str) -> String {
    crate::html::escape_markup(s, None, |out, c| match c {
        '\r' => out.push_str("&#13;"),
        c => out.push(replacement(c).unwrap_or(c)),
    })
}

/// Escapes `s` for a double-quoted attribute value.
///
/// Tab, line feed and carriage return are written as character references, which
/// attribute-value normalization leaves alone (a literal one would become a space).
pub fn attr(s: &str) -> String {
    crate::html::escape_markup(s, Some("&apos;"), |out, c| match c {
        '\t' => out.push_str("&#9;"),
        '\n' => out.push_str("&#10;"),
        '\r' => out.push_str("&#13;"),
        c => out.push(replacement(c).unwrap_or(c)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_markup_and_cdata_end() {
        assert_eq!(text("a<b&c>d ]]> \"q\""), "a&lt;b&amp;c&gt;d ]]&gt; \"q\"");
        assert_eq!(text("l1\nl2\r\n\tx"), "l1\nl2&#13;\n\tx");
    }

    #[test]
    fn attr_escapes_quotes_and_whitespace() {
        assert_eq!(
            attr("say \"hi\" & 'bye'\n\t<x>"),
            "say &quot;hi&quot; &amp; &apos;bye&apos;&#10;&#9;&lt;x&gt;"
        );
    }

    #[test]
    fn forbidden_characters_are_replaced() {
        assert_eq!(text("a\u{0}b\u{8}c\u{1B}d"), "a\u{2400}b\u{2408}c\u{241B}d");
        assert_eq!(attr("\u{FFFE}\u{FFFF}"), "\u{FFFD}\u{FFFD}");
        // Allowed characters stay, including C1 controls and astral ones.
        assert_eq!(text("\u{85}😀"), "\u{85}😀");
    }

    #[test]
    fn times_are_never_negative_or_nan() {
        assert_eq!(time(seconds(Some(f64::NAN))), "0.000");
        assert_eq!(time(seconds(Some(-1.0))), "0.000");
        assert_eq!(time(seconds(Some(1.23456))), "1.235");
        assert_eq!(time(seconds(None)), "0.000");
    }

    #[test]
    fn no_suites_is_an_empty_document() {
        assert_eq!(
            render(&[]),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vera\" \
             tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n\
             </testsuites>\n"
        );
    }
}

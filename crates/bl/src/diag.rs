//! Located diagnostics whose rendering is bounded whatever the input: each shows
//! `file:line:col`, a short excerpt of its line around the problem with a caret, and
//! at most [`MAX_SHOWN`] are kept per run. Control characters from the input are
//! escaped, so a file cannot send terminal escapes or start a new line of a report.

use logic::source::Severity;
use logic::{Diagnostic, SourceFile};
use std::borrow::Cow;
use std::fmt;

/// Most diagnostics kept (and shown) per run; the rest are counted.
pub const MAX_SHOWN: usize = 20;

/// Characters of the line shown on each side of the problem.
pub const EXCERPT_CONTEXT: usize = 60;

/// Longest message or hint, in characters.
pub const MAX_MESSAGE: usize = 400;

/// Longest `quoted` part of a message (a name or a piece of input), in characters.
pub const MAX_QUOTED: usize = 48;

/// True for characters that must not reach a terminal as they are: C0 and C1 controls
/// (escape sequences, carriage return, newline) and the bidirectional formatting
/// characters that reorder what is displayed.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Escapes control characters (and bidirectional formatting characters) as `\u{1b}`,
/// `\n` etc., so that text from an input file cannot act on a terminal or forge a
/// line of a report. Other text is returned unchanged.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// At most `max` characters of `s`; a longer text is cut and ends with
/// `… (N more bytes)`.
pub fn clip(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((at, _)) => Cow::Owned(format!("{}… ({} more bytes)", &s[..at], s.len() - at)),
    }
}

/// A name or other piece of input for a message: at most [`MAX_QUOTED`] characters,
/// control characters escaped.
pub fn quote(s: &str) -> String {
    let short = match s.char_indices().nth(MAX_QUOTED) {
        None => s,
        Some((at, _)) => &s[..at],
    };
    let mut out = escape(short).into_owned();
    if short.len() < s.len() {
        out.push('…');
    }
    out
}

/// Shortens every `backquoted` part longer than [`MAX_QUOTED`] characters (names and
/// pieces of input inside a message), escapes control characters, and caps the whole
/// at [`MAX_MESSAGE`] characters.
pub fn message(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('`') {
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        match after.find('`') {
            Some(close) => {
                out.push_str(&quote(&after[..close]));
                out.push('`');
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&quote(after));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    clip(&escape(&out), MAX_MESSAGE).into_owned()
}

/// A diagnostic with its file, line and column and a short excerpt of its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// File name (control characters escaped).
    pub file: String,
    /// One-based line.
    pub line: usize,
    /// One-based column, in characters.
    pub col: usize,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// At most [`EXCERPT_CONTEXT`] characters of the line on each side of the problem,
    /// `…` where the line goes on, control characters escaped and tabs as spaces.
    pub excerpt: String,
    /// Characters of `excerpt` before the problem.
    pub caret: usize,
    /// Characters to underline.
    pub width: usize,
}

/// Appends `c` to an excerpt; returns how many characters it takes there.
fn push_shown(out: &mut String, c: char) -> usize {
    if c == '\t' {
        out.push(' ');
        1
    } else if unsafe_char(c) {
        let before = out.chars().count();
        out.extend(c.escape_debug());
        out.chars().count() - before
    } else {
        out.push(c);
        1
    }
}

impl Located {
    /// Locates a diagnostic of `file`.
    pub fn new(file: &SourceFile, d: &Diagnostic) -> Located {
        let text = file.text();
        let mut at = d.span.start.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let (line, col) = file.line_col(at);
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i).max(at);
        let line_text = text[line_start..line_end].trim_end_matches('\r');
        let at_in_line = (at - line_start).min(line_text.len());
        // `at` can be past the trimmed line (on a final `\r`).
        let end = d.span.end.clamp(at, (line_start + line_text.len()).max(at));
        let (before, after) = line_text.split_at(at_in_line);
        let width_chars = text
            .get(at..end)
            .map_or(1, |s| s.chars().count())
            .clamp(1, EXCERPT_CONTEXT);
        excerpt(
            file.name(),
            line,
            col,
            d.severity,
            &d.message,
            d.hint.as_deref(),
            before,
            after,
            width_chars,
        )
    }

    /// Shortens a diagnostic located elsewhere (by `logic`), whose source line may be
    /// as long as the input.
    pub fn from_logic(l: &logic::Located) -> Located {
        let split = l
            .source_line
            .char_indices()
            .nth(l.col.saturating_sub(1))
            .map_or(l.source_line.len(), |(i, _)| i);
        let (before, after) = l.source_line.split_at(split);
        excerpt(
            &l.file,
            l.line,
            l.col,
            l.severity,
            &l.message,
            l.hint.as_deref(),
            before,
            after,
            l.width.clamp(1, EXCERPT_CONTEXT),
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn excerpt(
    file: &str,
    line: usize,
    col: usize,
    severity: Severity,
    msg: &str,
    hint: Option<&str>,
    before: &str,
    after: &str,
    width: usize,
) -> Located {
    // Up to EXCERPT_CONTEXT characters before the problem.
    let start = before
        .char_indices()
        .rev()
        .nth(EXCERPT_CONTEXT - 1)
        .map_or(0, |(i, _)| i);
    let mut shown = String::new();
    let mut caret = 0;
    if start > 0 {
        shown.push('…');
        caret += 1;
    }
    for c in before[start..].chars() {
        caret += push_shown(&mut shown, c);
    }
    let mut width_shown = 0;
    for (n, c) in after.chars().enumerate() {
        if n >= EXCERPT_CONTEXT {
            shown.push('…');
            break;
        }
        let w = push_shown(&mut shown, c);
        if n < width {
            width_shown += w;
        }
    }
    Located {
        file: escape(file).into_owned(),
        line,
        col,
        severity,
        message: message(msg),
        hint: hint.map(message),
        excerpt: shown,
        caret,
        width: width_shown.max(1),
    }
}

impl fmt::Display for Located {
    /// `file:line:col: error: message`, the excerpt with a caret, then the hint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.col, self.severity, self.message
        )?;
        let gutter = self.line.to_string().len();
        writeln!(f, "{:gutter$} |", "")?;
        writeln!(f, "{} | {}", self.line, self.excerpt)?;
        write!(
            f,
            "{:gutter$} | {}{}",
            "",
            " ".repeat(self.caret),
            "^".repeat(self.width)
        )?;
        if let Some(h) = &self.hint {
            write!(f, "\n{:gutter$} = hint: {}", "", h)?;
        }
        Ok(())
    }
}

/// Collects diagnostics while keeping memory bounded: the first few are kept (enough
/// to show [`MAX_SHOWN`] after sorting), the rest only counted.
#[derive(Debug, Clone, Default)]
pub struct Sink {
    kept: Vec<Diagnostic>,
    total: usize,
    errors: usize,
}

impl Sink {
    /// How many are kept before the rest are only counted.
    pub const KEEP: usize = 4 * MAX_SHOWN;

    /// Records a diagnostic.
    pub fn push(&mut self, d: Diagnostic) {
        self.total += 1;
        if d.severity == Severity::Error {
            self.errors += 1;
        }
        if self.kept.len() < Self::KEEP {
            self.kept.push(d);
        }
    }

    /// True once further diagnostics are only counted (so their hints need not be
    /// computed).
    pub fn full(&self) -> bool {
        self.kept.len() >= Self::KEEP
    }

    /// How many were recorded.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Adds what another sink recorded.
    pub fn merge(&mut self, other: Sink) {
        self.total += other.total;
        self.errors += other.errors;
        let room = (2 * Self::KEEP).saturating_sub(self.kept.len());
        self.kept.extend(other.kept.into_iter().take(room));
    }
}

/// Located diagnostics of one run: the first [`MAX_SHOWN`], and how many more.
#[derive(Debug, Clone, PartialEq, Eq, Default, thiserror::Error)]
pub struct Diagnostics {
    /// The diagnostics kept, in order.
    pub items: Vec<Located>,
    /// How many more there were.
    pub omitted: usize,
    /// Errors among all of them (kept and omitted).
    pub errors: usize,
}

impl Diagnostics {
    /// Locates diagnostics of `file` (in the order given), keeping the first
    /// [`MAX_SHOWN`].
    pub fn locate(file: &SourceFile, ds: &[Diagnostic]) -> Diagnostics {
        Diagnostics {
            items: ds
                .iter()
                .take(MAX_SHOWN)
                .map(|d| Located::new(file, d))
                .collect(),
            omitted: ds.len().saturating_sub(MAX_SHOWN),
            errors: ds.iter().filter(|d| d.severity == Severity::Error).count(),
        }
    }

    /// Locates the diagnostics kept by a [`Sink`], sorted by position, keeping the
    /// first [`MAX_SHOWN`] and counting all that the sink saw.
    pub fn from_sink(file: &SourceFile, sink: Sink) -> Diagnostics {
        let mut kept = sink.kept;
        kept.sort_by_key(|d| d.span.start);
        let mut d = Diagnostics::locate(file, &kept);
        d.omitted = sink.total.saturating_sub(d.items.len());
        d.errors = sink.errors;
        d
    }

    /// Diagnostics located by `logic`, shortened.
    pub fn from_logic(ds: &logic::Diagnostics) -> Diagnostics {
        Diagnostics {
            items: ds
                .0
                .iter()
                .take(MAX_SHOWN)
                .map(Located::from_logic)
                .collect(),
            omitted: ds.0.len().saturating_sub(MAX_SHOWN),
            errors: ds
                .0
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.omitted == 0
    }

    /// True when at least one is an error.
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        if self.omitted > 0 {
            write!(
                f,
                "\n... and {} more diagnostic{} not shown",
                self.omitted,
                if self.omitted == 1 { "" } else { "s" }
            )?;
        }
        if self.errors > 1 {
            write!(f, "\n{} errors", self.errors)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::Span;

    #[test]
    fn a_long_line_is_cut_around_the_problem_with_the_caret_in_place() {
        let text = format!(
            "let x = {}y{}\n",
            "a + ".repeat(10_000),
            " + 1".repeat(10_000)
        );
        let at = text.find('y').unwrap();
        let f = SourceFile::new("p.bl", text.clone());
        let d = Diagnostic::error(Span::new(at, at + 1), "unknown identifier `y`");
        let l = Located::new(&f, &d);
        assert_eq!((l.line, l.col), (1, at + 1));
        let shown = l.to_string();
        assert!(shown.len() < 400, "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        // Columns in characters: the excerpt starts with `…`, one character.
        let caret_col = lines[3].chars().position(|c| c == '^').unwrap();
        assert_eq!(lines[2].chars().nth(caret_col), Some('y'), "{shown}");
    }

    #[test]
    fn controls_are_escaped_and_quoted_names_clipped() {
        assert_eq!(escape("a\u{1b}[2Jb\nc"), "a\\u{1b}[2Jb\\nc");
        let m = message(&format!("unknown identifier `{}`", "x".repeat(1000)));
        assert!(m.len() < 80, "{m}");
        assert!(m.ends_with("…`"), "{m}");
        let f = SourceFile::new("a\nb.bl", "let \u{1b}x = 1");
        let l = Located::new(&f, &Diagnostic::error(Span::new(4, 5), "bad"));
        assert!(!l.to_string().contains('\u{1b}'));
        assert!(l.to_string().starts_with("a\\nb.bl:1:5"));
    }
}

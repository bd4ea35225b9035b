//! Source files, byte spans and diagnostics with `file:line:col` locations.

use std::fmt;
use std::sync::Arc;

/// A half-open byte range `[start, end)` into a [`SourceFile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte of the range.
    pub start: usize,
    /// One past the last byte of the range.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A named text together with the offsets of its line starts.
#[derive(Debug, Clone)]
pub struct SourceFile {
    name: Arc<str>,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Wraps `text`, naming it `name` in diagnostics (usually a path).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text: String = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: Arc::from(name.into()),
            text: Arc::from(text),
            line_starts,
        }
    }

    /// The name given at construction.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// One-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = self.boundary(offset);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// The text of a one-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map(|e| e - 1)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches('\r')
    }

    /// The text covered by a span (a span that ends inside a character, or past the
    /// end, is shortened to the nearest character boundary).
    pub fn slice(&self, span: Span) -> &str {
        let start = self.boundary(span.start);
        let end = self.boundary(span.end).max(start);
        &self.text[start..end]
    }

    /// `offset`, clamped to the text and moved back to the start of its character.
    fn boundary(&self, offset: usize) -> usize {
        let mut o = offset.min(self.text.len());
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// Attaches this file's location to a diagnostic.
    pub fn locate(&self, d: &Diagnostic) -> Located {
        let (line, col) = self.line_col(d.span.start);
        self.located(d, line, col)
    }

    fn located(&self, d: &Diagnostic, line: usize, col: usize) -> Located {
        let (source_line, caret) = self.excerpt(line, d.span.start);
        Located {
            file: self.name.to_string(),
            line,
            col,
            severity: d.severity,
            message: d.message.clone(),
            hint: d.hint.clone(),
            source_line,
            caret,
            width: self
                .slice(d.span)
                .chars()
                .take(MAX_CARETS + 1)
                .take_while(|c| *c != '\n')
                .count()
                .max(1),
        }
    }

    /// The line to show under a diagnostic and the number of its characters before the
    /// caret. A long line is cut to a window around the offset, marked with `...`.
    fn excerpt(&self, line: usize, offset: usize) -> (String, usize) {
        let full = self.line_text(line);
        let start = self.line_starts[line - 1];
        let at = offset.clamp(start, start + full.len()) - start;
        if full.len() <= MAX_LINE_SHOWN {
            return (full.to_string(), full[..at].chars().count());
        }
        let half = MAX_LINE_SHOWN / 2;
        let mut from = at.saturating_sub(half);
        while !full.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (at + half).min(full.len());
        while !full.is_char_boundary(to) {
            to += 1;
        }
        let mut shown = String::with_capacity(to - from + 6);
        if from > 0 {
            shown.push_str("...");
        }
        let caret = shown.len() + full[from..at].chars().count();
        shown.push_str(&full[from..to]);
        if to < full.len() {
            shown.push_str("...");
        }
        (shown, caret)
    }

    /// Locates the diagnostics of a list, at most [`MAX_SHOWN`] of them; a final note
    /// counts the rest. Columns are found in one pass when the list is in file order,
    /// so many diagnostics on one long line stay cheap.
    pub fn locate_all(&self, ds: &[Diagnostic]) -> Diagnostics {
        let mut out = Vec::with_capacity(ds.len().min(MAX_SHOWN + 1));
        // The last located offset, its line and column.
        let mut last: Option<(usize, usize, usize)> = None;
        for d in ds.iter().take(MAX_SHOWN) {
            let offset = d.span.start.min(self.text.len());
            let (line, col) = match last {
                Some((o, l, c))
                    if o <= offset && self.line_starts.get(l).is_none_or(|next| offset < *next) =>
                {
                    (l, c + self.text[o..offset].chars().count())
                }
                _ => self.line_col(offset),
            };
            last = Some((offset, line, col));
            out.push(self.located(d, line, col));
        }
        if ds.len() > MAX_SHOWN {
            let rest = &ds[MAX_SHOWN..];
            let errors = rest
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            let mut note = Diagnostic::error(
                rest[0].span,
                format!("{} more problem(s) not shown", rest.len()),
            );
            if errors == 0 {
                note.severity = Severity::Warning;
            }
            out.push(self.locate(&note));
        }
        Diagnostics(out)
    }
}

/// The most diagnostics [`SourceFile::locate_all`] renders.
pub const MAX_SHOWN: usize = 100;

/// The most characters of a source line shown under a diagnostic (lines of real
/// specifications stay whole; a window is cut from a longer one).
const MAX_LINE_SHOWN: usize = 1000;

/// The longest underline.
const MAX_CARETS: usize = 80;

/// The longest message or hint kept, in bytes; longer ones are cut with `...` (they
/// may quote input, which may be huge).
const MAX_MESSAGE: usize = 1000;

fn shorten(mut s: String) -> String {
    if s.len() > MAX_MESSAGE {
        let mut cut = MAX_MESSAGE;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input cannot be used.
    Error,
    /// The input can be used but is probably not what was meant.
    Warning,
    /// Information about how the input was read (rows skipped, columns chosen).
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// A problem found in some input, positioned by a byte span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is.
    pub span: Span,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// What to do about it, in one line.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            severity: Severity::Error,
            message: shorten(message.into()),
            hint: None,
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    /// A note at `span`: how the input was read, not a problem.
    pub fn note(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(span, message)
        }
    }

    /// Adds a one-line hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(shorten(hint.into()));
        self
    }
}

/// A diagnostic with its file, line and column resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// File name as given to [`SourceFile::new`].
    pub file: String,
    /// One-based line.
    pub line: usize,
    /// One-based column, in characters.
    pub col: usize,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// The source line the diagnostic points into (a window of it, with `...`
    /// marking the cuts, when the line is long).
    pub source_line: String,
    /// How many characters of `source_line` come before the caret.
    pub caret: usize,
    /// How many characters of the line to underline.
    pub width: usize,
}

impl fmt::Display for Located {
    /// `file:line:col: error: message`, then the source line with a caret, then the hint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.col, self.severity, self.message
        )?;
        let gutter = self.line.to_string().len();
        writeln!(f, "{:gutter$} |", "")?;
        writeln!(f, "{} | {}", self.line, self.source_line)?;
        let pad: String = self
            .source_line
            .chars()
            .take(self.caret)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(
            f,
            "{:gutter$} | {}{}",
            "",
            pad,
            "^".repeat(self.width.min(MAX_CARETS))
        )?;
        if let Some(h) = &self.hint {
            write!(f, "\n{:gutter$} = hint: {}", "", h)?;
        }
        Ok(())
    }
}

/// Several located diagnostics, reported together.
#[derive(Debug, Clone, PartialEq, Eq, Default, thiserror::Error)]
pub struct Diagnostics(pub Vec<Located>);

impl Diagnostics {
    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        let errors = self
            .0
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        if errors > 1 {
            write!(f, "\n{errors} errors")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let f = SourceFile::new("a.smt2", "ab\ncd\n\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(1), (1, 2));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(7), (4, 1));
        assert_eq!(f.line_text(2), "cd");
        assert_eq!(f.line_text(3), "");
    }

    #[test]
    fn long_lines_are_cut_around_the_caret_and_lists_are_capped() {
        let text = format!("{}(bad){}", "a ".repeat(50_000), " b".repeat(50_000));
        let f = SourceFile::new("l.smt2", text.clone());
        let at = text.find("(bad)").unwrap();
        let d = Diagnostic::error(Span::new(at, at + 5), "x".repeat(100_000));
        let shown = f.locate(&d).to_string();
        assert!(
            shown.len() < 2 * MAX_MESSAGE + 2 * MAX_LINE_SHOWN,
            "{}",
            shown.len()
        );
        assert!(shown.lines().nth(2).unwrap().len() < MAX_LINE_SHOWN + 20);
        let lines: Vec<&str> = shown.lines().collect();
        assert!(lines[0].starts_with("l.smt2:1:100001: error: xxx"));
        assert!(lines[0].ends_with("..."));
        let caret = lines[3].find('^').unwrap();
        assert_eq!(&lines[2][caret..caret + 5], "(bad)");
        let many: Vec<Diagnostic> = (0..1000)
            .map(|i| Diagnostic::error(Span::new(2 * i, 2 * i + 1), "e"))
            .collect();
        let all = f.locate_all(&many);
        assert_eq!(all.0.len(), MAX_SHOWN + 1);
        assert_eq!(all.0[99].col, 199);
        assert!(all.0[MAX_SHOWN].message.contains("900 more"));
    }

    #[test]
    fn located_display_has_caret_and_hint() {
        let f = SourceFile::new("a.smt2", "(assert (> x 1))");
        let d = Diagnostic::error(Span::new(11, 12), "undeclared symbol `x`")
            .with_hint("declare it first");
        let text = f.locate(&d).to_string();
        assert!(text.starts_with("a.smt2:1:12: error: undeclared symbol `x`"));
        assert!(text.contains("           ^"), "{text}");
        assert!(text.ends_with("= hint: declare it first"));
    }
}

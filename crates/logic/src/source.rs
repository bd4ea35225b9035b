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
        Located {
            file: self.name.to_string(),
            line,
            col,
            severity: d.severity,
            message: d.message.clone(),
            hint: d.hint.clone(),
            source_line: self.line_text(line).to_string(),
            width: self
                .slice(d.span)
                .chars()
                .take_while(|c| *c != '\n')
                .count()
                .max(1),
        }
    }

    /// Locates every diagnostic of a list.
    pub fn locate_all(&self, ds: &[Diagnostic]) -> Diagnostics {
        Diagnostics(ds.iter().map(|d| self.locate(d)).collect())
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input cannot be used.
    Error,
    /// The input can be used but is probably not what was meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
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
            message: message.into(),
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

    /// Adds a one-line hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
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
    /// The source line the diagnostic points into.
    pub source_line: String,
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
            .take(self.col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(
            f,
            "{:gutter$} | {}{}",
            "",
            pad,
            "^".repeat(self.width.min(80))
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

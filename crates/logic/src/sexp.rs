//! SMT-LIB 2.6 s-expressions with source spans.
//!
//! The reader is iterative (no recursion), so deeply nested input cannot overflow
//! the stack; a nesting limit still bounds the depth that later, recursive, passes see.

use crate::source::{Diagnostic, Span};
use num_bigint::BigUint;
use std::fmt;

/// One s-expression and the bytes it came from. Equality ignores the span.
#[derive(Debug, Clone, Eq)]
pub struct Sexp {
    /// What the expression is.
    pub kind: SexpKind,
    /// Where it is in its source.
    pub span: Span,
}

impl PartialEq for Sexp {
    fn eq(&self, other: &Sexp) -> bool {
        self.kind == other.kind
    }
}

/// The kinds of s-expression SMT-LIB has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SexpKind {
    /// A simple or `|quoted|` symbol, without the bars.
    Symbol(String),
    /// A `:keyword`, without the colon.
    Keyword(String),
    /// A numeral such as `42`.
    Numeral(BigUint),
    /// A decimal such as `0.145`, as written.
    Decimal(String),
    /// `#x..` or `#b..`, as written (vera has no bit-vectors; kept for messages).
    Bits(String),
    /// A string literal, with `""` unescaped.
    Str(String),
    /// A parenthesised list.
    List(Vec<Sexp>),
}

impl Sexp {
    /// A sexp with an empty span, for building output.
    pub fn new(kind: SexpKind) -> Sexp {
        Sexp {
            kind,
            span: Span::default(),
        }
    }

    /// A symbol atom.
    pub fn sym(s: impl Into<String>) -> Sexp {
        Sexp::new(SexpKind::Symbol(s.into()))
    }

    /// A list.
    pub fn list(items: Vec<Sexp>) -> Sexp {
        Sexp::new(SexpKind::List(items))
    }

    /// The symbol's name, if this is a symbol.
    pub fn as_symbol(&self) -> Option<&str> {
        match &self.kind {
            SexpKind::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            SexpKind::List(items) => Some(items),
            _ => None,
        }
    }

    /// The head symbol of a non-empty list whose first item is a symbol.
    pub fn head(&self) -> Option<&str> {
        self.as_list()?.first()?.as_symbol()
    }

    /// Depth of nesting; an atom has depth 0.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 0usize)];
        while let Some((s, d)) = stack.pop() {
            max = max.max(d);
            if let SexpKind::List(items) = &s.kind {
                stack.extend(items.iter().map(|i| (i, d + 1)));
            }
        }
        max
    }
}

/// Limits on what the reader accepts.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    /// Deepest accepted nesting of parentheses.
    pub max_depth: usize,
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits { max_depth: 1000 }
    }
}

/// The most errors one read records. Reading goes on after that many, but further
/// errors are dropped: they would only burden the report and memory.
pub const MAX_ERRORS: usize = 1000;

/// The most digits a numeral or decimal may have. Converting decimal digits to a
/// number takes time quadratic in their count; the limit keeps every literal fast.
pub const MAX_NUMBER_DIGITS: usize = 100_000;

/// A comment at the top level, between expressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// The comment text without the leading `;`.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// What the reader produces: top-level expressions, top-level comments and errors.
#[derive(Debug, Clone, Default)]
pub struct ReadOutput {
    /// Complete top-level expressions, in order.
    pub items: Vec<Sexp>,
    /// Comments that stand between top-level expressions.
    pub comments: Vec<Comment>,
    /// Lexical and bracket errors. Reading continues after most of them.
    pub errors: Vec<Diagnostic>,
}

/// Reads every top-level s-expression of `text`.
pub fn read(text: &str, limits: ReadLimits) -> ReadOutput {
    Reader {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        limits,
        out: ReadOutput::default(),
    }
    .run()
}

/// Reads exactly one s-expression (used for solver responses and terms on the command line).
pub fn read_one(text: &str) -> Result<Sexp, Vec<Diagnostic>> {
    let mut out = read(text, ReadLimits::default());
    if !out.errors.is_empty() {
        return Err(out.errors);
    }
    match out.items.len() {
        1 => Ok(out.items.pop().expect("one item")),
        0 => Err(vec![Diagnostic::error(
            Span::new(0, text.len()),
            "expected an expression, found nothing",
        )]),
        _ => Err(vec![Diagnostic::error(
            out.items[1].span,
            "expected one expression, found more",
        )]),
    }
}

fn is_symbol_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"~!@$%^&*_-+=<>.?/".contains(&b)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    limits: ReadLimits,
    out: ReadOutput,
}

impl Reader<'_> {
    /// Records an error, unless [`MAX_ERRORS`] are recorded already.
    fn error(&mut self, d: Diagnostic) {
        if self.out.errors.len() < MAX_ERRORS {
            self.out.errors.push(d);
        }
    }

    fn run(mut self) -> ReadOutput {
        // Open lists: start offset and items so far.
        let mut stack: Vec<(usize, Vec<Sexp>)> = Vec::new();
        // Skips the rest of an over-deep list, counting brackets.
        let mut skipping: usize = 0;
        // Set when the current top-level item had an over-deep list: the item is dropped.
        let mut poisoned = false;
        loop {
            let comment_start = self.pos;
            let comment = self.skip_space();
            if stack.is_empty() && skipping == 0 {
                if let Some(text) = comment {
                    self.out
                        .comments
                        .extend(text.into_iter().map(|(s, e)| Comment {
                            text: self.text[s + 1..e].to_string(),
                            span: Span::new(s, e),
                        }));
                }
            }
            let _ = comment_start;
            if self.pos >= self.bytes.len() {
                break;
            }
            let start = self.pos;
            let b = self.bytes[self.pos];
            if skipping > 0 {
                match b {
                    b'(' => skipping += 1,
                    b')' => skipping -= 1,
                    b'"' => {
                        self.string();
                        continue;
                    }
                    b'|' => {
                        self.quoted();
                        continue;
                    }
                    _ => {}
                }
                self.pos += 1;
                continue;
            }
            match b {
                b'(' => {
                    self.pos += 1;
                    if stack.len() >= self.limits.max_depth {
                        self.error(
                            Diagnostic::error(
                                Span::new(start, start + 1),
                                format!("nesting deeper than {} levels", self.limits.max_depth),
                            )
                            .with_hint("flatten the expression, e.g. with `let`"),
                        );
                        skipping = 1;
                        poisoned = true;
                        continue;
                    }
                    stack.push((start, Vec::new()));
                }
                b')' => {
                    self.pos += 1;
                    match stack.pop() {
                        Some((open, items)) => {
                            let e = Sexp {
                                kind: SexpKind::List(items),
                                span: Span::new(open, self.pos),
                            };
                            self.push(&mut stack, e, &mut poisoned);
                        }
                        None => self.error(
                            Diagnostic::error(Span::new(start, self.pos), "unbalanced `)`")
                                .with_hint("remove it, or add the `(` it closes"),
                        ),
                    }
                }
                _ => {
                    if let Some(atom) = self.atom() {
                        self.push(&mut stack, atom, &mut poisoned);
                    }
                }
            }
        }
        // Unclosed lists: report the outermost opening bracket.
        if let Some((open, _)) = stack.first() {
            self.error(
                Diagnostic::error(
                    Span::new(*open, *open + 1),
                    "unclosed `(`: the input ends before this list is closed",
                )
                .with_hint("the input may be truncated; add the missing `)`"),
            );
        }
        self.out
    }

    fn push(&mut self, stack: &mut [(usize, Vec<Sexp>)], e: Sexp, poisoned: &mut bool) {
        match stack.last_mut() {
            Some((_, items)) => items.push(e),
            None if *poisoned => *poisoned = false,
            None => self.out.items.push(e),
        }
    }

    /// Skips white space and comments; returns the comment spans seen.
    fn skip_space(&mut self) -> Option<Vec<(usize, usize)>> {
        let mut comments = Vec::new();
        while self.pos < self.bytes.len() {
            let b = self.bytes[self.pos];
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else if b == b';' {
                let s = self.pos;
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
                comments.push((s, self.pos));
            } else {
                break;
            }
        }
        (!comments.is_empty()).then_some(comments)
    }

    fn string(&mut self) -> Option<Sexp> {
        let start = self.pos;
        self.pos += 1;
        let mut s = String::new();
        while let Some(rest) = self.text.get(self.pos..) {
            match rest.find('"') {
                Some(i) => {
                    s.push_str(&rest[..i]);
                    self.pos += i + 1;
                    if self.bytes.get(self.pos) == Some(&b'"') {
                        s.push('"');
                        self.pos += 1;
                    } else {
                        return Some(Sexp {
                            kind: SexpKind::Str(s),
                            span: Span::new(start, self.pos),
                        });
                    }
                }
                None => break,
            }
        }
        self.pos = self.bytes.len();
        self.error(
            Diagnostic::error(Span::new(start, start + 1), "unterminated string literal")
                .with_hint("close it with `\"`"),
        );
        None
    }

    fn quoted(&mut self) -> Option<Sexp> {
        let start = self.pos;
        self.pos += 1;
        let rest = &self.text[self.pos..];
        match rest.find('|') {
            Some(i) => {
                let body = &rest[..i];
                self.pos += i + 1;
                if body.contains('\\') {
                    self.error(Diagnostic::error(
                        Span::new(start, self.pos),
                        "a quoted symbol may not contain `\\`",
                    ));
                    return None;
                }
                Some(Sexp {
                    kind: SexpKind::Symbol(body.to_string()),
                    span: Span::new(start, self.pos),
                })
            }
            None => {
                self.pos = self.bytes.len();
                self.error(
                    Diagnostic::error(Span::new(start, start + 1), "unterminated quoted symbol")
                        .with_hint("close it with `|`"),
                );
                None
            }
        }
    }

    fn atom(&mut self) -> Option<Sexp> {
        let start = self.pos;
        let b = self.bytes[start];
        match b {
            b'"' => return self.string(),
            b'|' => return self.quoted(),
            _ => {}
        }
        let mut end = start + 1;
        while end < self.bytes.len()
            && (is_symbol_char(self.bytes[end])
                || self.bytes[end] == b'#'
                || self.bytes[end] == b':')
        {
            end += 1;
        }
        if !(is_symbol_char(b) || b == b'#' || b == b':') {
            // A character SMT-LIB does not allow outside strings and quoted symbols.
            let ch = self.text[start..].chars().next().expect("non-empty");
            self.pos = start + ch.len_utf8();
            self.error(Diagnostic::error(
                Span::new(start, self.pos),
                format!("unexpected character `{}`", ch.escape_default()),
            ));
            return None;
        }
        self.pos = end;
        let word = &self.text[start..end];
        let span = Span::new(start, end);
        let kind = if let Some(k) = word.strip_prefix(':') {
            SexpKind::Keyword(k.to_string())
        } else if word.starts_with('#') {
            if (word.starts_with("#x")
                && word.len() > 2
                && word[2..].bytes().all(|c| c.is_ascii_hexdigit()))
                || (word.starts_with("#b")
                    && word.len() > 2
                    && word[2..].bytes().all(|c| c == b'0' || c == b'1'))
            {
                SexpKind::Bits(word.to_string())
            } else {
                self.error(Diagnostic::error(
                    span,
                    format!("malformed literal `{word}`"),
                ));
                return None;
            }
        } else if b.is_ascii_digit() {
            let (int, frac) = match word.split_once('.') {
                Some((i, f)) => (i, Some(f)),
                None => (word, None),
            };
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
            let ok = digits(int) && frac.is_none_or(digits);
            if !ok {
                self.error(
                    Diagnostic::error(span, format!("malformed number `{word}`"))
                        .with_hint("numerals are digits, decimals are digits.digits"),
                );
                return None;
            }
            let count = word.len() - usize::from(frac.is_some());
            if count > MAX_NUMBER_DIGITS {
                self.error(
                    Diagnostic::error(
                        span,
                        format!(
                            "number of {count} digits exceeds the limit of {MAX_NUMBER_DIGITS} digits"
                        ),
                    )
                    .with_hint("vera reads numbers of up to 100,000 digits"),
                );
                return None;
            }
            match frac {
                None => match word.parse() {
                    Ok(n) => SexpKind::Numeral(n),
                    Err(_) => {
                        self.error(Diagnostic::error(
                            span,
                            format!("malformed number `{word}`"),
                        ));
                        return None;
                    }
                },
                Some(_) => SexpKind::Decimal(word.to_string()),
            }
        } else if word.contains(':') || word.contains('#') {
            self.error(Diagnostic::error(
                span,
                format!("malformed symbol `{word}`"),
            ));
            return None;
        } else {
            SexpKind::Symbol(word.to_string())
        };
        Some(Sexp { kind, span })
    }
}

/// True when `s` can be written without `|bars|`.
pub fn is_simple_symbol(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && !b[0].is_ascii_digit() && b.iter().all(|c| is_symbol_char(*c))
}

/// True when `s` can be written at all (as a simple or quoted symbol).
pub fn is_printable_symbol(s: &str) -> bool {
    !s.contains('|') && !s.contains('\\')
}

/// Writes a symbol, quoting it when needed.
pub fn write_symbol(out: &mut String, s: &str) {
    if is_simple_symbol(s) {
        out.push_str(s);
    } else {
        out.push('|');
        out.push_str(s);
        out.push('|');
    }
}

impl fmt::Display for Sexp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_flat(&mut s, self);
        f.write_str(&s)
    }
}

/// Writes a sexp on one line.
pub fn write_flat(out: &mut String, e: &Sexp) {
    crate::deep(|| write_flat_inner(out, e))
}

fn write_flat_inner(out: &mut String, e: &Sexp) {
    match &e.kind {
        SexpKind::Symbol(s) => write_symbol(out, s),
        SexpKind::Keyword(k) => {
            out.push(':');
            out.push_str(k);
        }
        SexpKind::Numeral(n) => out.push_str(&n.to_string()),
        SexpKind::Decimal(d) | SexpKind::Bits(d) => out.push_str(d),
        SexpKind::Str(s) => {
            out.push('"');
            out.push_str(&s.replace('"', "\"\""));
            out.push('"');
        }
        SexpKind::List(items) => {
            out.push('(');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_flat(out, it);
            }
            out.push(')');
        }
    }
}

fn flat_len(e: &Sexp, budget: usize) -> usize {
    // Stops counting once the budget is exceeded: layout only needs "fits or not".
    match &e.kind {
        SexpKind::List(items) => {
            let mut n = 1;
            for (i, it) in items.iter().enumerate() {
                n += usize::from(i > 0) + flat_len(it, budget.saturating_sub(n));
                if n > budget {
                    return n;
                }
            }
            n + 1
        }
        // A numeral has at least bits * log10(2) digits: a long one need not be
        // converted to decimal (quadratic in its length) to know that it does not fit.
        SexpKind::Numeral(n)
            if n.bits() as f64 * std::f64::consts::LOG10_2 > budget as f64 + 1.0 =>
        {
            budget + 1
        }
        _ => {
            let mut s = String::new();
            write_flat(&mut s, e);
            s.len()
        }
    }
}

/// Writes a sexp over several lines, breaking lists that do not fit in `width` columns.
pub fn write_pretty(out: &mut String, e: &Sexp, indent: usize, width: usize) {
    crate::deep(|| write_pretty_inner(out, e, indent, width))
}

fn write_pretty_inner(out: &mut String, e: &Sexp, indent: usize, width: usize) {
    let room = width.saturating_sub(indent);
    match &e.kind {
        SexpKind::List(items) if flat_len(e, room) > room && items.len() > 1 => {
            out.push('(');
            write_pretty(out, &items[0], indent + 1, width);
            let child = indent + 2;
            for it in &items[1..] {
                out.push('\n');
                out.push_str(&" ".repeat(child));
                write_pretty(out, it, child, width);
            }
            out.push(')');
        }
        _ => write_flat(out, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_ok(s: &str) -> Vec<Sexp> {
        let out = read(s, ReadLimits::default());
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        out.items
    }

    #[test]
    fn atoms_and_lists() {
        let items = read_ok("(assert (> x 1.5)) ; c\n |a b| :named \"s\"\"q\" #b101");
        assert_eq!(items.len(), 5);
        assert_eq!(items[0].to_string(), "(assert (> x 1.5))");
        assert_eq!(items[1].kind, SexpKind::Symbol("a b".into()));
        assert_eq!(items[2].kind, SexpKind::Keyword("named".into()));
        assert_eq!(items[3].kind, SexpKind::Str("s\"q".into()));
        assert_eq!(items[4].kind, SexpKind::Bits("#b101".into()));
        assert_eq!(items[0].span, Span::new(0, 18));
    }

    #[test]
    fn bracket_errors_are_reported() {
        let out = read("(a (b)", ReadLimits::default());
        assert_eq!(out.errors.len(), 1);
        assert!(out.errors[0].message.contains("unclosed"));
        assert_eq!(out.errors[0].span.start, 0);
        let out = read("a) b", ReadLimits::default());
        assert!(out.errors[0].message.contains("unbalanced"));
        assert_eq!(out.items.len(), 2);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "(".repeat(100_000) + &")".repeat(100_000);
        let out = read(&deep, ReadLimits { max_depth: 50 });
        assert_eq!(out.errors.len(), 1);
        assert!(out.errors[0].message.contains("nesting"));
        assert!(out.items.is_empty());
    }

    #[test]
    fn malformed_numbers() {
        let out = read("1.2.3 01a", ReadLimits::default());
        assert_eq!(out.errors.len(), 2);
    }

    #[test]
    fn pretty_breaks_long_lists() {
        let e = read_ok("(and (> aaaaaaaa 1) (< bbbbbbbbbb 2) (= cccccccccc 3))").remove(0);
        let mut s = String::new();
        write_pretty(&mut s, &e, 0, 30);
        assert_eq!(
            s,
            "(and\n  (> aaaaaaaa 1)\n  (< bbbbbbbbbb 2)\n  (= cccccccccc 3))"
        );
    }
}

//! The BL lexer and parser (Fig. 5 of the SIRNA paper) and the static checks that run
//! after parsing: unknown identifiers, use before definition, rebinding and division
//! by a literal zero.
//!
//! Parsing goes on after an error: a syntax error skips to the next `let`, and the
//! static checks look at every binding, so one run reports as many problems as it can.

use crate::ast::{BinOp, Binding, CmpOp, Expr, ExprKind, Let, Program};
use crate::diag::{Diagnostics, Sink};
use logic::{Diagnostic, SourceFile, Span};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::HashMap;

/// Deepest accepted nesting of an expression: parentheses, `if`s and chains of
/// operators (`a + b + c` is nested two deep) all count. A rate table written as an
/// `if` chain nests one level per row; every pass over a program is iterative or
/// grows its stack on the heap, and the consistency check runs on a large stack.
pub const MAX_DEPTH: usize = 100_000;

/// Most digits in a number literal.
pub const MAX_NUMBER_DIGITS: usize = 200;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Let,
    If,
    Then,
    Else,
    Input,
    Ident(String),
    Num(BigRational),
    Op(BinOp),
    Cmp(CmpOp),
    Assign,
    LParen,
    RParen,
    Eof,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Let => "`let`".into(),
        Tok::If => "`if`".into(),
        Tok::Then => "`then`".into(),
        Tok::Else => "`else`".into(),
        Tok::Input => "`<input>`".into(),
        Tok::Ident(s) => format!("identifier `{s}`"),
        Tok::Num(_) => "a number".into(),
        Tok::Op(o) => format!("`{}`", o.symbol()),
        Tok::Cmp(c) => format!("`{}`", c.symbol()),
        Tok::Assign => "`=`".into(),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::Eof => "the end of the file".into(),
    }
}

/// A lexer that produces one token at a time, so that memory does not grow with the
/// number of tokens.
struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    /// The next token; problems go to `diags`.
    fn next(&mut self, diags: &mut Sink) -> (Tok, Span) {
        let text = self.text;
        let b = text.as_bytes();
        loop {
            let mut i = self.pos;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            self.pos = i;
            if i >= b.len() {
                return (Tok::Eof, Span::new(text.len(), text.len()));
            }
            let c = b[i];
            let start = i;
            if c.is_ascii_alphabetic() {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                self.pos = i;
                let w = &text[start..i];
                let t = match w {
                    "let" => Tok::Let,
                    "if" => Tok::If,
                    "then" => Tok::Then,
                    "else" => Tok::Else,
                    _ => Tok::Ident(w.to_string()),
                };
                return (t, Span::new(start, i));
            }
            if c.is_ascii_digit() {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i < b.len() && b[i] == b'.' {
                    if i + 1 < b.len() && b[i + 1].is_ascii_digit() {
                        i += 1;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    } else {
                        diags.push(
                            Diagnostic::error(
                                Span::new(start, i + 1),
                                "a number cannot end with `.`",
                            )
                            .with_hint("write digits after the point, e.g. `5.0`"),
                        );
                        self.pos = i + 1;
                        continue;
                    }
                }
                self.pos = i;
                let span = Span::new(start, i);
                let digits = text[start..i].bytes().filter(u8::is_ascii_digit).count();
                if digits > MAX_NUMBER_DIGITS {
                    diags.push(
                        Diagnostic::error(
                            span,
                            format!(
                                "a number with {digits} digits; at most {MAX_NUMBER_DIGITS} are accepted"
                            ),
                        )
                        .with_hint("is a separator missing between two numbers?"),
                    );
                    return (Tok::Num(BigRational::zero()), span);
                }
                return (Tok::Num(parse_number(&text[start..i])), span);
            }
            let rest = &text[i..];
            let (tok, len) = if rest.starts_with("<input>") {
                (Some(Tok::Input), 7)
            } else if rest.starts_with("<=") {
                (Some(Tok::Cmp(CmpOp::Le)), 2)
            } else if rest.starts_with(">=") {
                (Some(Tok::Cmp(CmpOp::Ge)), 2)
            } else if rest.starts_with("==") {
                (Some(Tok::Cmp(CmpOp::Eq)), 2)
            } else {
                match c {
                    b'<' => (Some(Tok::Cmp(CmpOp::Lt)), 1),
                    b'>' => (Some(Tok::Cmp(CmpOp::Gt)), 1),
                    b'=' => (Some(Tok::Assign), 1),
                    b'+' => (Some(Tok::Op(BinOp::Add)), 1),
                    b'-' => (Some(Tok::Op(BinOp::Sub)), 1),
                    b'*' => (Some(Tok::Op(BinOp::Mul)), 1),
                    b'/' => (Some(Tok::Op(BinOp::Div)), 1),
                    b'(' => (Some(Tok::LParen), 1),
                    b')' => (Some(Tok::RParen), 1),
                    _ => (None, rest.chars().next().map_or(1, char::len_utf8)),
                }
            };
            self.pos = i + len;
            match tok {
                Some(t) => return (t, Span::new(start, start + len)),
                None => {
                    let ch = &text[start..start + len];
                    let hint = match ch {
                        "!" => "BL has no `!=`; compare with `==` and swap the branches",
                        "_" => "identifiers start with a letter",
                        "#" | ";" => "BL has no comments",
                        "×" => "write multiplication as `*`",
                        "≤" => "write `<=`",
                        "≥" => "write `>=`",
                        "\u{fffd}" => "the file is not valid UTF-8 here",
                        _ => "BL has `let`, `if`/`then`/`else`, numbers, names, + - * / ( ) and > < == <= >=",
                    };
                    diags.push(
                        Diagnostic::error(
                            Span::new(start, start + len),
                            format!("unexpected character `{ch}`"),
                        )
                        .with_hint(hint),
                    );
                }
            }
        }
    }
}

/// The exact value of a BL number literal (`[0-9]+(.[0-9]+)?`). The caller checks the
/// shape; anything else reads as 0.
pub fn parse_number(s: &str) -> BigRational {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits: String = format!("{int}{frac}");
    let n: BigInt = digits.parse().unwrap_or_default();
    let e = i32::try_from(frac.len()).unwrap_or(i32::MAX);
    crate::times_pow10(BigRational::from_integer(n), -e)
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The current token.
    cur: (Tok, Span),
    depth: usize,
    diags: Sink,
}

/// A syntax error already recorded; unwinds to the enclosing `let`.
struct Bail;

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.cur.0
    }

    fn span(&self) -> Span {
        self.cur.1
    }

    fn bump(&mut self) -> (Tok, Span) {
        if self.cur.0 == Tok::Eof {
            return self.cur.clone();
        }
        let next = self.lexer.next(&mut self.diags);
        std::mem::replace(&mut self.cur, next)
    }

    fn error(&mut self, msg: String, hint: Option<&str>) -> Bail {
        self.error_at(self.span(), msg, hint)
    }

    fn error_at(&mut self, span: Span, msg: String, hint: Option<&str>) -> Bail {
        let mut d = Diagnostic::error(span, msg);
        if let Some(h) = hint {
            d = d.with_hint(h);
        }
        self.diags.push(d);
        Bail
    }

    /// A node of height `h`; an error when that is deeper than [`MAX_DEPTH`].
    fn node(&mut self, kind: ExprKind, span: Span, h: usize) -> Result<(Expr, usize), Bail> {
        if h > MAX_DEPTH {
            return Err(self.error_at(
                span,
                format!("expression nested more than {MAX_DEPTH} levels deep"),
                Some("split it into several `let` bindings"),
            ));
        }
        Ok((Expr { kind, span }, h))
    }

    fn expect(&mut self, want: Tok, what: &str, hint: Option<&str>) -> Result<Span, Bail> {
        if *self.peek() == want {
            Ok(self.bump().1)
        } else {
            let found = describe(self.peek());
            Err(self.error(format!("expected {what}, found {found}"), hint))
        }
    }

    fn program(&mut self) -> Program {
        let mut lets = Vec::new();
        while *self.peek() != Tok::Eof {
            match self.assign() {
                Ok(l) => lets.push(l),
                Err(Bail) => {
                    // Skip to the next `let`.
                    while !matches!(self.peek(), Tok::Let | Tok::Eof) {
                        self.bump();
                    }
                }
            }
        }
        Program { lets }
    }

    fn assign(&mut self) -> Result<Let, Bail> {
        let start = self.expect(
            Tok::Let,
            "`let`",
            Some("a BL program is a sequence of `let name = expression` bindings"),
        )?;
        let (name, name_span) = match self.peek().clone() {
            Tok::Ident(n) => (n, self.bump().1),
            t @ (Tok::If | Tok::Then | Tok::Else | Tok::Let) => {
                return Err(self.error(
                    format!("{} is a keyword and cannot be bound", describe(&t)),
                    Some("choose another name"),
                ))
            }
            t => {
                return Err(self.error(
                    format!("expected a name after `let`, found {}", describe(&t)),
                    None,
                ))
            }
        };
        self.expect(Tok::Assign, "`=`", Some("write `let name = expression`"))?;
        let (value, end) = if *self.peek() == Tok::Input {
            (Binding::Input, self.bump().1)
        } else {
            let (e, _) = self.expr()?;
            let end = e.span;
            (Binding::Expr(e), end)
        };
        match self.peek() {
            Tok::Let | Tok::Eof => {}
            t => {
                let found = describe(t);
                return Err(self.error(
                    format!("unexpected {found} after the definition of `{name}`"),
                    Some("each binding is `let name = expression`; is an operator missing?"),
                ));
            }
        }
        Ok(Let {
            name,
            name_span,
            value,
            span: start.to(end),
        })
    }

    /// An expression and its height (a literal is 1).
    fn expr(&mut self) -> Result<(Expr, usize), Bail> {
        self.chain([BinOp::Add, BinOp::Sub], Self::mult)
    }

    fn mult(&mut self) -> Result<(Expr, usize), Bail> {
        self.chain([BinOp::Mul, BinOp::Div], Self::unary)
    }

    /// A left-associative chain of the operators `ops` between what `operand` reads,
    /// and its height.
    fn chain(
        &mut self,
        ops: [BinOp; 2],
        operand: fn(&mut Self) -> Result<(Expr, usize), Bail>,
    ) -> Result<(Expr, usize), Bail> {
        let (mut lhs, mut h) = operand(self)?;
        while let Tok::Op(op) = *self.peek() {
            if !ops.contains(&op) {
                break;
            }
            self.bump();
            let (rhs, rh) = operand(self)?;
            let span = lhs.span.to(rhs.span);
            (lhs, h) = self.node(
                ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)),
                span,
                h.max(rh) + 1,
            )?;
        }
        Ok((lhs, h))
    }

    fn unary(&mut self) -> Result<(Expr, usize), Bail> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(
                format!("expression nested more than {MAX_DEPTH} levels deep"),
                Some("split it into several `let` bindings"),
            ));
        }
        self.depth += 1;
        let r = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.unary_inner());
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> Result<(Expr, usize), Bail> {
        match self.peek() {
            Tok::Num(_) | Tok::Ident(_) => {
                let (t, span) = self.bump();
                let kind = match t {
                    Tok::Num(n) => ExprKind::Num(n),
                    Tok::Ident(v) => ExprKind::Var(v),
                    _ => unreachable!("matched above"),
                };
                Ok((Expr { kind, span }, 1))
            }
            Tok::LParen => {
                let start = self.bump().1;
                let (inner, h) = self.expr()?;
                let end = self.expect(Tok::RParen, "`)`", Some("close the parenthesis"))?;
                self.node(ExprKind::Paren(Box::new(inner)), start.to(end), h + 1)
            }
            Tok::If => {
                let start = self.bump().1;
                let (lhs, h1) = self.expr()?;
                let cmp = match *self.peek() {
                    Tok::Cmp(c) => {
                        self.bump();
                        c
                    }
                    Tok::Assign => {
                        return Err(self.error(
                            "`=` is not a comparison".into(),
                            Some("write `==` to compare"),
                        ))
                    }
                    ref t => {
                        let found = describe(t);
                        return Err(self.error(
                            format!("expected a comparison (> < == <= >=), found {found}"),
                            Some("a condition is `expression comparison expression`"),
                        ));
                    }
                };
                let (rhs, h2) = self.expr()?;
                self.expect(Tok::Then, "`then`", Some("write `if a > b then x else y`"))?;
                let (then_, h3) = self.expr()?;
                self.expect(
                    Tok::Else,
                    "`else`",
                    Some("every `if` needs an `else` branch"),
                )?;
                let (else_, h4) = self.expr()?;
                let span = start.to(else_.span);
                self.node(
                    ExprKind::If {
                        lhs: Box::new(lhs),
                        cmp,
                        rhs: Box::new(rhs),
                        then_: Box::new(then_),
                        else_: Box::new(else_),
                    },
                    span,
                    h1.max(h2).max(h3).max(h4) + 1,
                )
            }
            Tok::Op(BinOp::Sub) => {
                Err(self.error("BL has no unary minus".into(), Some("write `0 - x`")))
            }
            Tok::Input => Err(self.error(
                "`<input>` can only be the whole right-hand side of a `let`".into(),
                Some("bind the input to a name first: `let x = <input>`"),
            )),
            t => {
                let found = describe(t);
                Err(self.error(format!("expected an expression, found {found}"), None))
            }
        }
    }
}

fn is_zero_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Num(n) => n.is_zero(),
        ExprKind::Paren(x) => is_zero_literal(x),
        _ => false,
    }
}

/// The defined name closest to `v` by edit distance, if close enough to suggest.
/// Names far apart in length are not compared, which keeps this cheap on long names.
fn nearest<'a>(v: &str, defined: &HashMap<&'a str, Span>) -> Option<&'a str> {
    const LONGEST: usize = 64;
    if v.len() > LONGEST {
        return None;
    }
    defined
        .keys()
        .filter(|k| k.len() <= LONGEST && k.len().abs_diff(v.len()) <= 2.max(k.len() / 4))
        .map(|k| (edit_distance(k, v), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4) && *d < v.len())
        .min()
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The static checks, as raw diagnostics (not yet located).
fn check(program: &Program, file: &SourceFile, diags: &mut Sink) {
    let mut defined: HashMap<&str, Span> = HashMap::new();
    let all: HashMap<&str, Span> = program
        .lets
        .iter()
        .rev()
        .map(|l| (l.name.as_str(), l.name_span))
        .collect();
    for l in &program.lets {
        if let Binding::Expr(e) = &l.value {
            for (v, span) in e.vars() {
                if defined.contains_key(v) {
                    continue;
                }
                if v == l.name {
                    diags.push(
                        Diagnostic::error(span, format!("`{v}` is used in its own definition"))
                            .with_hint("BL bindings are not recursive; use an earlier name"),
                    );
                } else if let Some(later) = all.get(v) {
                    // Hints of diagnostics that will not be shown are not worked out.
                    let hint = if diags.full() {
                        String::new()
                    } else {
                        let (line, _) = file.line_col(later.start);
                        format!("`{v}` is defined on line {line}; move that binding up")
                    };
                    diags.push(
                        Diagnostic::error(span, format!("`{v}` is used before its definition"))
                            .with_hint(hint),
                    );
                } else {
                    let near = if diags.full() {
                        None
                    } else {
                        nearest(v, &defined)
                    };
                    let hint = match near {
                        Some(k) => format!("did you mean `{k}`?"),
                        None => format!("bind it first, e.g. `let {v} = <input>`"),
                    };
                    diags.push(
                        Diagnostic::error(span, format!("unknown identifier `{v}`"))
                            .with_hint(hint),
                    );
                }
            }
            let mut stack = vec![e];
            while let Some(x) = stack.pop() {
                match &x.kind {
                    ExprKind::Bin(op, a, b) => {
                        if *op == BinOp::Div && is_zero_literal(b) {
                            diags.push(
                                Diagnostic::error(b.span, "division by zero")
                                    .with_hint("the divisor is the literal 0"),
                            );
                        }
                        stack.push(a);
                        stack.push(b);
                    }
                    ExprKind::Paren(a) => stack.push(a),
                    ExprKind::If {
                        lhs,
                        rhs,
                        then_,
                        else_,
                        ..
                    } => stack.extend([&**lhs, &**rhs, &**then_, &**else_]),
                    _ => {}
                }
            }
        }
        if let Some(first) = defined.get(l.name.as_str()) {
            let (line, _) = if diags.full() {
                (0, 0)
            } else {
                file.line_col(first.start)
            };
            diags.push(
                Diagnostic::error(l.name_span, format!("`{}` is bound twice", l.name)).with_hint(
                    format!(
                        "it was first bound on line {line}; BL names are immutable, use a new name"
                    ),
                ),
            );
        } else {
            defined.insert(&l.name, l.name_span);
        }
    }
}

/// Parses and checks a BL program, reporting every error it can find.
///
/// Work and memory are linear in the size of the text; at most
/// [`crate::diag::MAX_SHOWN`] diagnostics are kept, each with a short excerpt.
pub fn parse(file: &SourceFile) -> Result<Program, Diagnostics> {
    let mut diags = Sink::default();
    let mut lexer = Lexer {
        text: file.text(),
        pos: 0,
    };
    let first = lexer.next(&mut diags);
    let mut p = Parser {
        lexer,
        cur: first,
        depth: 0,
        diags,
    };
    let program = p.program();
    let mut diags = p.diags;
    if program.lets.is_empty() && diags.total() == 0 {
        diags.push(
            Diagnostic::error(
                Span::new(0, file.text().len()),
                "the program has no bindings",
            )
            .with_hint("write at least one `let name = expression`"),
        );
    }
    let mut checks = Sink::default();
    check(&program, file, &mut checks);
    diags.merge(checks);
    if diags.total() == 0 {
        Ok(program)
    } else {
        Err(Diagnostics::from_sink(file, diags))
    }
}

/// Warnings for a program that parsed: bindings that nothing uses (other than the
/// last one, which is the conventional output).
pub fn warnings(program: &Program, file: &SourceFile) -> Diagnostics {
    let mut used = std::collections::HashSet::new();
    for l in &program.lets {
        if let Binding::Expr(e) = &l.value {
            for (v, _) in e.vars() {
                used.insert(v.to_string());
            }
        }
    }
    let n = program.lets.len();
    let mut ds = Sink::default();
    for l in program
        .lets
        .iter()
        .take(n.saturating_sub(1))
        .filter(|l| !used.contains(&l.name))
    {
        ds.push(
            Diagnostic::warning(l.name_span, format!("`{}` is never used", l.name)).with_hint(
                "an unused input is ignored; an unused binding may be the intended output",
            ),
        );
    }
    Diagnostics::from_sink(file, ds)
}

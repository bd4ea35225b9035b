//! FRETish, the structured English of NASA's FRET (its `fulltext`), read into vera's timed
//! patterns (docs/timed.md). [`crate::fret_to_spec`] reads a FRET export and calls this
//! module for each requirement; the mapping below is what it does with a sentence.
//!
//! A FRETish requirement is `[scope] [condition] [the] component shall [timing] satisfy
//! RESPONSE`, following the grammar of FRET's parser (`Requirement.g4`): keywords in any
//! case, an optional comma after the scope, the condition and the timing, an optional
//! full stop at the end, and FRET's other order `... shall [the] component [timing]
//! satisfy ...`. FRET's meaning of each part comes from its semantics table
//! (`semantics.json`: the description and the past-time formula of each scope, condition
//! and timing) and its user documentation; vera's patterns are read as defined in
//! docs/timed.md. Each mapping called exact below is checked by
//! crates/reqs/tests/fret_conformance.rs, which evaluates FRET's past-time formula on
//! random traces against vera's trace evaluator.
//!
//! # Time
//!
//! FRET ignores time units: `5 seconds`, `5 ticks` and `5 hours` all mean five time
//! points. vera reads them the same way: a FRET duration `N <unit>` is `"N ticks"`, and
//! one FRET time point is one tick (`--tick` only says how long a tick is). A unit other
//! than ticks gets a note.
//!
//! # Scopes, conditions and triggers
//!
//! FRET checks a requirement in *intervals* given by the scope; a trigger is the first
//! point of an interval (no condition), the first point where the condition holds or
//! becomes true (a *regular* condition: `upon`, `when`, `if`, `where`, `unless`), or
//! every point where it holds (a *holding* condition: `whenever`). Several conditions are
//! joined with `and` (the default) or `or`; `unless C` and `C is false` are `!C`; as in
//! FRET, the condition is holding only when every qualifier is `whenever`.
//!
//! | FRET scope | interval | vera |
//! |---|---|---|
//! | none (globally) | the whole run | no scope key |
//! | `in M`, `during M`, `when in M`, `if in M`, `while C` | every maximal run where `M` (`C`) holds | see below |
//! | `not in M`, `when not in M`, `unless in M`, `except in M`, `except while C` | every maximal run where `M` does not hold | as `in`, with `(not M)` |
//! | `before M` | from the start up to (excluding) the first point where `M` holds | `scope_before = M` (exact) |
//! | `after M` | from the point after the first `M` interval ends | refused: vera's `scope_after` opens where a formula first holds, FRET's after `M` has ended |
//! | `only in/during/while/after/before ...` | the response must *not* occur outside | refused: the negated timings (`always` becomes "false at some point") have no counterpart |
//!
//! A mode `M` is the Boolean variable `M`, or the `modeRequirement` expression of a
//! variable of `idType` `Mode` that has one.
//!
//! Triggers, with `I` the scope's formula (`M`, or `(not M)`):
//!
//! - globally, no condition: the first point, `initially = true`. Exact.
//! - globally, regular `C`: `when = C`. Exact: FRET fires at the first point when `C`
//!   holds there and where `C` becomes true, vera's `when` fires at step 0 when `C` holds
//!   and where `C` holds and did not the step before.
//! - globally, holding `C`: `if = C`. Exact.
//! - in/not in, no condition: the first point of each interval, `when = I`. Exact.
//! - in/not in, regular `C`: `when = (and I C)`. Exact: `I ∧ C` rises exactly where an
//!   interval starts with `C` true or `C` becomes true inside an interval.
//! - in/not in, holding `C`: `if = (and I C)`. Exact.
//! - before `M`: `scope_before = M` with the trigger as globally (the scope gates it).
//!   Exact.
//!
//! # Timings
//!
//! `t` is a trigger, `S` the response:
//!
//! - `immediately`, `initially`, `at the first timepoint`, `at the same timepoint`: `S` at
//!   `t`; no timing key. Exact.
//! - `at the next timepoint`: `next = true`. Exact (a trigger at the last point of a
//!   finite run asks nothing in both).
//! - `within N`: `within = "N ticks"`: `S` at one of `t .. t+N`. Exact: FRET's "distance
//!   <= N", `N+1` points, and nothing required when the run ends first.
//! - `for N`: `for = "N ticks"`: `S` at every point of `t .. t+N`. Exact (`N+1` points in
//!   both) without a scope; see below for scopes.
//! - `until C`: `until = C`: `S` from `t` up to (excluding) the first point where `C`
//!   holds, forever if it never does. Exact (FRET: satisfied when `C` holds at `t`).
//! - `before C`: `before = C`. Near: FRET also fails a trigger at which `C` already holds
//!   (`S` must occur strictly before that point); vera looks for `C` after the trigger
//!   only (a note says so).
//! - `always`: globally without a condition, `then = S` (every step). With a condition,
//!   `S` from `t` to the end of the interval: `until = "false"` globally, `until = (not
//!   I)` in a mode, `until = M` before `M`. Without a condition in a mode or before `M`:
//!   `scope_while = I` (`scope_before = M`) and `then = S` at every step of the scope.
//!   Exact.
//! - `never`: as `always` with `(not S)`. Exact.
//! - `after N`: refused: FRET asks `S` false at `t .. t+N` *and* true at `t+N+1`; no one
//!   vera pattern says both.
//! - `eventually` and no timing at all (FRET's default is `eventually`): refused, vera has
//!   no unbounded response.
//! - `finally`, `at the last timepoint`: refused (no counterpart).
//!
//! In a mode scope and before `M`, FRET drops an obligation when its interval ends (a
//! `within` whose interval closes first need not be met, a `for` stops at the end of the
//! interval); vera's obligations run to their end whatever the scope does
//! (docs/timed.md). With `E` the end of the interval (`(not I)`, or `M` before `M`),
//! the import says FRET's reading: `next` and `within` ask `(or S E)`, `until C` stops
//! at `(or C E)`; exact, since the first step where `E` holds is where the interval has
//! ended. `for` and `before` have no such form (a later interval would count too): vera
//! is stricter there when the interval closes first, and a note names these
//! requirements.
//!
//! # Temporal predicates
//!
//! - `whenever persisted(N, P)` (the whole condition, globally): `if = P`, `held_for = "N
//!   ticks"` (`P` at the `N+1` points `t-N .. t`). Exact.
//! - `whenever occurred(N, P)` (the whole condition, globally): `if = P`, `within_last =
//!   "N ticks"`. Exact.
//! - `shall never satisfy persisted(N, P)` (globally, no condition): `if = P`, `held_for
//!   = "N ticks"`, `then = false`. Exact.
//!
//! Anywhere else, and `preBool`/`preInt`/`preReal`, `persists`, `occurs`, `nextOcc`,
//! `prevOcc`, `at the next/previous occurrence of`, `FTP` and functions other than those
//! below are refused by name: a vera formula speaks of one state. A `with probability`
//! clause is refused.
//!
//! # Expressions
//!
//! `!`/`~`, `&`, `|`, `xor`, `->`/`=>`, `<->`/`<=>`, `if P then Q`, `=`, `!=`, `<`, `<=`,
//! `>`, `>=`, `+`, `-`, `*`, `/`, `mod`, `true`, `false`, numbers and names are written as
//! SMT-LIB, with FRET's precedence (`!` binds tightest, then `&`, then `|`/`xor`, then the
//! implications; `!x > 3` is `!(x > 3)`). `absReal`/`absInt`, `minReal`/`minInt` and
//! `maxReal`/`maxInt` become `abs` or `ite`. Refused: chained implications without
//! parentheses (FRET's parser groups them to the left; the import does not guess),
//! `^`, a product of two non-constant terms and division by a non-constant (vera's specs
//! are linear), numbers with exponents, quoted names.
//!
//! A name's sort comes from the export's variables (`dataType` `boolean` is Bool,
//! `integer` and the (un)signed integer types Int, `double`, `single` and `float` Real).
//! Without a variable list, it is inferred from use, with a note: a name used as a
//! condition is Bool; a name compared or computed with is Int, or Real when a decimal
//! number or a Real variable appears in the same comparison (names compared with each
//! other share a sort). An `Internal` variable whose `assignment` is a number or `true`/
//! `false` is a constant, replaced by its value (with a note).

use std::collections::HashMap;

/// How deeply expressions may nest.
const MAX_DEPTH: usize = 100;
/// The longest duration vera accepts, in ticks (docs/timed.md).
pub(crate) const MAX_TICKS: u64 = 100_000;

/// A problem at a byte offset of the sentence (or of the text it was found in).
pub(crate) type Raw = (usize, String);

// ---------------------------------------------------------------------------------------
// Lexer

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Word,
    Num,
    Op(&'static str),
    LPar,
    RPar,
    Comma,
    Dot,
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    k: K,
    s: usize,
    e: usize,
}

const OPS: &[(&str, &str)] = &[
    ("<=>", "<=>"),
    ("<->", "<=>"),
    ("->", "=>"),
    ("=>", "=>"),
    ("<=", "<="),
    (">=", ">="),
    ("!=", "!="),
    ("<", "<"),
    (">", ">"),
    ("=", "="),
    ("!", "!"),
    ("~", "!"),
    ("&", "&"),
    ("|", "|"),
    ("^", "^"),
    ("+", "+"),
    ("-", "-"),
    ("*", "*"),
    ("/", "/"),
];

fn lex(text: &str) -> Result<Vec<Tok>, Raw> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        let s = i;
        let k = if c.is_ascii_alphabetic() {
            let mut j = 1;
            loop {
                match rest[j..].chars().next() {
                    Some(d) if d.is_ascii_alphanumeric() || d == '_' => j += 1,
                    Some('.')
                        if rest[j + 1..]
                            .chars()
                            .next()
                            .is_some_and(|d| d.is_ascii_alphanumeric() || d == '_') =>
                    {
                        j += 1
                    }
                    _ => break,
                }
            }
            i += j;
            K::Word
        } else if c.is_ascii_digit() {
            let digits = |r: &str| r.find(|d: char| !d.is_ascii_digit()).unwrap_or(r.len());
            let mut j = digits(rest);
            if rest[j..].starts_with('.') && rest[j + 1..].starts_with(|d: char| d.is_ascii_digit())
            {
                j += 1 + digits(&rest[j + 1..]);
            }
            if rest[j..].starts_with(['e', 'E']) {
                let mut k = j + 1;
                if rest[k..].starts_with(['+', '-']) {
                    k += 1;
                }
                if rest[k..].starts_with(|d: char| d.is_ascii_digit()) {
                    return Err((
                        s,
                        format!(
                            "the number {} has an exponent: write it without one",
                            &rest[..k + digits(&rest[k..])]
                        ),
                    ));
                }
            }
            i += j;
            K::Num
        } else if c == '"' {
            return Err((
                s,
                "quoted names are not imported: name the variable with letters, digits and _"
                    .into(),
            ));
        } else if let Some(&(src, op)) = OPS.iter().find(|(src, _)| rest.starts_with(src)) {
            i += src.len();
            K::Op(op)
        } else {
            i += c.len_utf8();
            match c {
                '(' => K::LPar,
                ')' => K::RPar,
                ',' => K::Comma,
                '.' => K::Dot,
                _ => return Err((s, format!("unexpected character '{c}'"))),
            }
        };
        out.push(Tok { k, s, e: i });
    }
    Ok(out)
}

/// FRET's reserved words (its lexer's keywords): never variable names.
const KEYWORDS: &[&str] = &[
    "after",
    "always",
    "and",
    "at",
    "before",
    "during",
    "eventually",
    "except",
    "false",
    "finally",
    "first",
    "for",
    "if",
    "immediately",
    "in",
    "initially",
    "is",
    "last",
    "mod",
    "mode",
    "never",
    "next",
    "not",
    "occurrence",
    "of",
    "only",
    "or",
    "previous",
    "probability",
    "same",
    "satisfy",
    "shall",
    "the",
    "then",
    "timepoint",
    "true",
    "unless",
    "until",
    "upon",
    "what",
    "when",
    "whenever",
    "where",
    "while",
    "with",
    "within",
    "xor",
];

fn is_unit(w: &str) -> Option<&'static str> {
    let w = w.to_ascii_lowercase();
    let strip = |w: &str, stem: &str, long: &str| {
        w == stem
            || w == format!("{stem}s")
            || w == format!("{stem}{long}")
            || w == format!("{stem}{long}s")
    };
    Some(if w == "tick" || w == "ticks" {
        "ticks"
    } else if strip(&w, "microsec", "ond") {
        "microseconds"
    } else if strip(&w, "millisec", "ond") {
        "milliseconds"
    } else if strip(&w, "sec", "ond") {
        "seconds"
    } else if w == "minute" || w == "minutes" {
        "minutes"
    } else if w == "hour" || w == "hours" {
        "hours"
    } else {
        return None;
    })
}

fn is_keyword(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    KEYWORDS.contains(&l.as_str()) || is_unit(&l).is_some()
}

// ---------------------------------------------------------------------------------------
// Syntax

/// An expression of FRETish, with the byte offset where it starts.
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub at: usize,
    pub e: E,
}

#[derive(Debug, Clone)]
pub(crate) enum E {
    Bool(bool),
    /// The number's text, and whether it has a decimal point.
    Num(String, bool),
    Var(String),
    /// `!`, `neg`.
    Un(&'static str, Box<Expr>),
    /// `&`, `|`, `xor`, `=>`, `<=>`, `=`, `!=`, `<`, `<=`, `>`, `>=`, `+`, `-`, `*`, `/`,
    /// `mod`, `^`.
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
}

/// FRET's scope kinds (its `scope.type` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    Null,
    In,
    NotIn,
    Before,
    After,
    OnlyIn,
    OnlyAfter,
    OnlyBefore,
}

impl ScopeKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ScopeKind::Null => "null",
            ScopeKind::In => "in",
            ScopeKind::NotIn => "notin",
            ScopeKind::Before => "before",
            ScopeKind::After => "after",
            ScopeKind::OnlyIn => "onlyIn",
            ScopeKind::OnlyAfter => "onlyAfter",
            ScopeKind::OnlyBefore => "onlyBefore",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub kind: ScopeKind,
    /// The mode (a `Var` marked by `mode`) or the scope condition.
    pub expr: Option<Expr>,
    /// True when `expr` is a mode name (not a condition).
    pub is_mode: bool,
    pub at: usize,
    pub words: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Cond {
    pub holding: bool,
    pub expr: Expr,
}

/// FRET's timings (its `timing` names).
#[derive(Debug, Clone)]
pub(crate) enum Timing {
    Null,
    Immediately,
    Next,
    Finally,
    Eventually,
    Always,
    Never,
    Within(u64, &'static str),
    For(u64, &'static str),
    After,
    Until(Expr),
    Before(Expr),
}

impl Timing {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Timing::Null => "null",
            Timing::Immediately => "immediately",
            Timing::Next => "next",
            Timing::Finally => "finally",
            Timing::Eventually => "eventually",
            Timing::Always => "always",
            Timing::Never => "never",
            Timing::Within(..) => "within",
            Timing::For(..) => "for",
            Timing::After => "after",
            Timing::Until(_) => "until",
            Timing::Before(_) => "before",
        }
    }
}

/// A parsed FRETish requirement.
#[derive(Debug, Clone)]
pub(crate) struct Sentence {
    pub scope: Scope,
    pub cond: Option<Cond>,
    pub timing: Timing,
    /// Where the timing's words start (the `satisfy` keyword when there is none).
    pub timing_at: usize,
    pub timing_words: String,
    pub response: Expr,
    /// Where `with probability` starts, if there is one.
    pub probability: Option<usize>,
}

impl Sentence {
    /// FRET's key of this sentence's semantics: `scope,condition,timing`.
    pub(crate) fn key(&self) -> String {
        format!(
            "{},{},{}",
            self.scope.kind.name(),
            match &self.cond {
                None => "null",
                Some(c) if c.holding => "holding",
                Some(_) => "regular",
            },
            self.timing.name()
        )
    }
}

struct P<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn src(&self, i: usize) -> &str {
        self.toks.get(i).map_or("", |t| &self.text[t.s..t.e])
    }

    fn at(&self, i: usize) -> usize {
        self.toks.get(i).map_or(self.text.len(), |t| t.s)
    }

    fn is_kw(&self, i: usize, w: &str) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| t.k == K::Word && self.src(i).eq_ignore_ascii_case(w))
    }

    fn kind(&self, i: usize) -> Option<K> {
        self.toks.get(i).map(|t| t.k)
    }

    fn describe(&self, i: usize) -> String {
        match self.toks.get(i) {
            None => "the end of the requirement".into(),
            Some(_) => format!("\"{}\"", self.src(i)),
        }
    }

    fn err<T>(&self, i: usize, what: &str) -> Result<T, Raw> {
        Err((
            self.at(i),
            format!("expected {what}, found {}", self.describe(i)),
        ))
    }

    fn comma(&mut self) {
        if self.kind(self.i) == Some(K::Comma) {
            self.i += 1;
        }
    }

    // --- expressions ---

    fn deeper(&mut self) -> Result<(), Raw> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err((
                self.at(self.i),
                format!("the expression nests more than {MAX_DEPTH} deep"),
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, Raw> {
        self.deeper()?;
        let r = self.implies();
        self.depth -= 1;
        r
    }

    fn op(&self) -> Option<&'static str> {
        match self.kind(self.i) {
            Some(K::Op(o)) => Some(o),
            Some(K::Word) if self.is_kw(self.i, "xor") => Some("xor"),
            Some(K::Word) if self.is_kw(self.i, "mod") => Some("mod"),
            _ => None,
        }
    }

    fn implies(&mut self) -> Result<Expr, Raw> {
        let l = self.or()?;
        let Some(o) = self.op().filter(|o| matches!(*o, "=>" | "<=>")) else {
            return Ok(l);
        };
        self.i += 1;
        let r = self.or()?;
        if let Some(o2) = self.op().filter(|o| matches!(*o, "=>" | "<=>")) {
            return Err((
                self.at(self.i),
                format!(
                    "{o} and {o2} chained without parentheses: write (a {o} b) {o2} c or \
                     a {o} (b {o2} c)"
                ),
            ));
        }
        Ok(Expr {
            at: l.at,
            e: E::Bin(o, Box::new(l), Box::new(r)),
        })
    }

    fn left(
        &mut self,
        ops: &[&'static str],
        next: fn(&mut Self) -> Result<Expr, Raw>,
    ) -> Result<Expr, Raw> {
        let mut l = next(self)?;
        while let Some(o) = self.op().filter(|o| ops.contains(o)) {
            self.i += 1;
            let r = next(self)?;
            l = Expr {
                at: l.at,
                e: E::Bin(o, Box::new(l), Box::new(r)),
            };
        }
        Ok(l)
    }

    fn or(&mut self) -> Result<Expr, Raw> {
        self.left(&["|", "xor"], Self::and)
    }

    fn and(&mut self) -> Result<Expr, Raw> {
        self.left(&["&"], Self::not)
    }

    fn not(&mut self) -> Result<Expr, Raw> {
        if self.op() == Some("!") {
            return self.prefix("!", Self::not);
        }
        if self.is_kw(self.i, "if") {
            let at = self.at(self.i);
            self.i += 1;
            let a = self.expr()?;
            if !self.is_kw(self.i, "then") {
                return self.err(self.i, "\"then\" (if ... then ...)");
            }
            self.i += 1;
            let b = self.expr()?;
            return Ok(Expr {
                at,
                e: E::Bin("=>", Box::new(a), Box::new(b)),
            });
        }
        self.rel()
    }

    /// The prefix operator at the current token, `name` applied to what `operand`
    /// reads after it.
    fn prefix(
        &mut self,
        name: &'static str,
        operand: fn(&mut Self) -> Result<Expr, Raw>,
    ) -> Result<Expr, Raw> {
        let at = self.at(self.i);
        self.i += 1;
        self.deeper()?;
        let x = operand(self);
        self.depth -= 1;
        Ok(Expr {
            at,
            e: E::Un(name, Box::new(x?)),
        })
    }

    fn rel(&mut self) -> Result<Expr, Raw> {
        let l = self.sum()?;
        let is_rel = |o: Option<&str>| matches!(o, Some("=" | "!=" | "<" | "<=" | ">" | ">="));
        if !is_rel(self.op()) {
            return Ok(l);
        }
        let o = self.op().unwrap_or("=");
        self.i += 1;
        let r = self.sum()?;
        if is_rel(self.op()) {
            return Err((
                self.at(self.i),
                "comparisons do not chain: write (a < b) & (b < c)".into(),
            ));
        }
        Ok(Expr {
            at: l.at,
            e: E::Bin(o, Box::new(l), Box::new(r)),
        })
    }

    fn sum(&mut self) -> Result<Expr, Raw> {
        self.left(&["+", "-"], Self::product)
    }

    fn product(&mut self) -> Result<Expr, Raw> {
        self.left(&["*", "/", "mod"], Self::neg)
    }

    fn neg(&mut self) -> Result<Expr, Raw> {
        if self.op() == Some("-") {
            return self.prefix("neg", Self::neg);
        }
        self.left(&["^"], Self::atom)
    }

    fn atom(&mut self) -> Result<Expr, Raw> {
        let i = self.i;
        let at = self.at(i);
        match self.kind(i) {
            Some(K::LPar) => {
                self.i += 1;
                let x = self.expr()?;
                if self.kind(self.i) != Some(K::RPar) {
                    return self.err(self.i, "\")\" (a \"(\" is not closed)");
                }
                self.i += 1;
                Ok(x)
            }
            Some(K::Num) => {
                self.i += 1;
                let s = self.src(i).to_string();
                let dec = s.contains('.');
                Ok(Expr {
                    at,
                    e: E::Num(s, dec),
                })
            }
            Some(K::Word) => {
                let w = self.src(i).to_string();
                let lw = w.to_ascii_lowercase();
                if lw == "true" || lw == "false" {
                    self.i += 1;
                    return Ok(Expr {
                        at,
                        e: E::Bool(lw == "true"),
                    });
                }
                if lw == "at"
                    && self.is_kw(i + 1, "the")
                    && (self.is_kw(i + 2, "next") || self.is_kw(i + 2, "previous"))
                    && self.is_kw(i + 3, "occurrence")
                {
                    return Err((
                        at,
                        format!(
                            "\"at the {} occurrence of\" is not supported: a vera formula \
                             speaks of one state",
                            self.src(i + 2).to_ascii_lowercase()
                        ),
                    ));
                }
                if is_keyword(&w) {
                    return Err((
                        at,
                        format!(
                            "expected a variable, a number or \"(\", found \"{w}\" (a FRETish \
                             keyword, not usable as a variable name)"
                        ),
                    ));
                }
                self.i += 1;
                if self.kind(self.i) == Some(K::LPar) {
                    self.i += 1;
                    let mut args = Vec::new();
                    if self.kind(self.i) != Some(K::RPar) {
                        loop {
                            args.push(self.expr()?);
                            if self.kind(self.i) == Some(K::Comma) {
                                self.i += 1;
                                continue;
                            }
                            break;
                        }
                    }
                    if self.kind(self.i) != Some(K::RPar) {
                        return self.err(self.i, &format!("\",\" or \")\" in the call of {w}"));
                    }
                    self.i += 1;
                    return Ok(Expr {
                        at,
                        e: E::Call(w, args),
                    });
                }
                Ok(Expr { at, e: E::Var(w) })
            }
            _ => self.err(i, "a variable, a number or \"(\""),
        }
    }

    // --- the sentence ---

    /// `mode M`, `M mode` or `M`.
    fn mode(&mut self) -> Result<Expr, Raw> {
        if self.is_kw(self.i, "mode") {
            self.i += 1;
        }
        let i = self.i;
        if self.kind(i) != Some(K::Word) || is_keyword(self.src(i)) {
            return self.err(i, "a mode name");
        }
        self.i += 1;
        if self.is_kw(self.i, "mode") {
            self.i += 1;
        }
        Ok(Expr {
            at: self.at(i),
            e: E::Var(self.src(i).to_string()),
        })
    }

    /// `after`/`before` take a mode name or a condition: a lone name (with or without
    /// `mode`) followed by the end of the scope is a mode.
    fn mode_or_cond(&mut self) -> Result<(Expr, bool), Raw> {
        let i = self.i;
        let lone = |p: &Self, j: usize| {
            p.kind(j) == Some(K::Word) && !is_keyword(p.src(j)) && {
                let k = if p.is_kw(j + 1, "mode") { j + 2 } else { j + 1 };
                !matches!(p.kind(k), Some(K::Op(_)) | Some(K::LPar))
                    && !p.is_kw(k, "xor")
                    && !p.is_kw(k, "mod")
            }
        };
        if self.is_kw(i, "mode") || lone(self, i) {
            return Ok((self.mode()?, true));
        }
        Ok((self.expr()?, false))
    }

    fn scope(&mut self) -> Result<Scope, Raw> {
        let start = self.i;
        let at = self.at(start);
        let w = |p: &Self, k: usize| p.src(k).to_ascii_lowercase();
        let in_words = |p: &Self, k: usize| -> Option<usize> {
            // DURING | (WHEN|IF)? IN
            match w(p, k).as_str() {
                "during" | "in" => Some(k + 1),
                "when" | "if" if p.is_kw(k + 1, "in") => Some(k + 2),
                _ => None,
            }
        };
        let (kind, expr, is_mode) = match w(self, start).as_str() {
            "only" => {
                let k = start + 1;
                if let Some(n) = in_words(self, k) {
                    self.i = n;
                    (ScopeKind::OnlyIn, self.mode()?, true)
                } else if self.is_kw(k, "while") {
                    self.i = k + 1;
                    (ScopeKind::OnlyIn, self.expr()?, false)
                } else if self.is_kw(k, "after") || self.is_kw(k, "before") {
                    self.i = k + 1;
                    let (e, m) = self.mode_or_cond()?;
                    let kind = if self.is_kw(k, "after") {
                        ScopeKind::OnlyAfter
                    } else {
                        ScopeKind::OnlyBefore
                    };
                    (kind, e, m)
                } else {
                    return self.err(
                        k,
                        "\"in\", \"during\", \"while\", \"after\" or \"before\" after \"only\"",
                    );
                }
            }
            "except" => {
                let k = start + 1;
                if let Some(n) = in_words(self, k) {
                    self.i = n;
                    (ScopeKind::NotIn, self.mode()?, true)
                } else if self.is_kw(k, "while") {
                    self.i = k + 1;
                    (ScopeKind::NotIn, self.expr()?, false)
                } else {
                    return self.err(k, "\"in\", \"during\" or \"while\" after \"except\"");
                }
            }
            "when" | "if" if self.is_kw(start + 1, "not") && self.is_kw(start + 2, "in") => {
                self.i = start + 3;
                (ScopeKind::NotIn, self.mode()?, true)
            }
            "when" | "if" if self.is_kw(start + 1, "in") => {
                self.i = start + 2;
                (ScopeKind::In, self.mode()?, true)
            }
            "in" | "during" => {
                self.i = start + 1;
                (ScopeKind::In, self.mode()?, true)
            }
            "unless" if self.is_kw(start + 1, "in") => {
                self.i = start + 2;
                (ScopeKind::NotIn, self.mode()?, true)
            }
            "while" => {
                self.i = start + 1;
                (ScopeKind::In, self.expr()?, false)
            }
            "after" | "before" => {
                self.i = start + 1;
                let (e, m) = self.mode_or_cond()?;
                let kind = if w(self, start) == "after" {
                    ScopeKind::After
                } else {
                    ScopeKind::Before
                };
                (kind, e, m)
            }
            _ => {
                return Ok(Scope {
                    kind: ScopeKind::Null,
                    expr: None,
                    is_mode: false,
                    at,
                    words: String::new(),
                })
            }
        };
        let end = self.toks.get(self.i.wrapping_sub(1)).map_or(at, |t| t.e);
        let words = crate::one_line(&self.text[at..end.max(at)]);
        self.comma();
        Ok(Scope {
            kind,
            expr: Some(expr),
            is_mode,
            at,
            words,
        })
    }

    fn qualifier(&self) -> Option<String> {
        let w = self.src(self.i).to_ascii_lowercase();
        (self.kind(self.i) == Some(K::Word)
            && matches!(
                w.as_str(),
                "upon" | "whenever" | "when" | "unless" | "where" | "if"
            ))
        .then_some(w)
    }

    fn condition(&mut self) -> Result<Option<Cond>, Raw> {
        // An optional AND before the first qualified condition.
        let save = self.i;
        if self.is_kw(self.i, "and") {
            self.i += 1;
        }
        let Some(_) = self.qualifier() else {
            self.i = save;
            return Ok(None);
        };
        let mut all_whenever = true;
        let mut acc: Option<Expr> = None;
        loop {
            let join = if acc.is_some() {
                let j = if self.is_kw(self.i, "or") {
                    self.i += 1;
                    "|"
                } else {
                    if self.is_kw(self.i, "and") {
                        self.i += 1;
                    }
                    "&"
                };
                if self.qualifier().is_none() {
                    return self.err(
                        self.i,
                        "a condition word (upon, whenever, when, unless, where, if)",
                    );
                }
                j
            } else {
                "&"
            };
            let q = self.qualifier().unwrap_or_default();
            let qat = self.at(self.i);
            self.i += 1;
            if q != "whenever" {
                all_whenever = false;
            }
            let mut e = self.expr()?;
            let mut neg = q == "unless";
            if self.is_kw(self.i, "is")
                && (self.is_kw(self.i + 1, "true") || self.is_kw(self.i + 1, "false"))
            {
                if self.is_kw(self.i + 1, "false") {
                    neg = !neg;
                }
                self.i += 2;
            }
            if neg {
                e = Expr {
                    at: qat,
                    e: E::Un("!", Box::new(e)),
                };
            }
            acc = Some(match acc {
                None => e,
                Some(a) => Expr {
                    at: a.at,
                    e: E::Bin(join, Box::new(a), Box::new(e)),
                },
            });
            // Another qualified condition: `[,] [and|or] qualifier ...`.
            let mut k = self.i;
            if self.kind(k) == Some(K::Comma) {
                k += 1;
            }
            let more = {
                let j = if self.is_kw(k, "and") || self.is_kw(k, "or") {
                    k + 1
                } else {
                    k
                };
                let save = self.i;
                self.i = j;
                let q = self.qualifier().is_some();
                self.i = save;
                q
            };
            if more {
                self.i = k;
                continue;
            }
            self.comma();
            break;
        }
        Ok(acc.map(|expr| Cond {
            holding: all_whenever,
            expr,
        }))
    }

    /// A duration: a whole number and an optional unit.
    fn duration(&mut self) -> Result<(u64, &'static str), Raw> {
        let i = self.i;
        if self.kind(i) != Some(K::Num) {
            return self.err(
                i,
                "a duration (a whole number of time points, e.g. 5 ticks)",
            );
        }
        let s = self.src(i);
        let n: u64 = match s.parse() {
            Ok(n) => n,
            Err(_) => {
                return Err((
                    self.at(i),
                    format!("the duration {s} is not a whole number of time points"),
                ))
            }
        };
        if n > MAX_TICKS {
            return Err((
                self.at(i),
                format!("the duration {s} is more than {MAX_TICKS} ticks"),
            ));
        }
        self.i += 1;
        let unit = if self.kind(self.i) == Some(K::Word) {
            match is_unit(self.src(self.i)) {
                Some(u) => {
                    self.i += 1;
                    u
                }
                None => "ticks",
            }
        } else {
            "ticks"
        };
        Ok((n, unit))
    }

    fn timing(&mut self) -> Result<Timing, Raw> {
        self.comma();
        let i = self.i;
        let w = self.src(i).to_ascii_lowercase();
        if self.kind(i) != Some(K::Word) {
            return self.err(i, "a timing or \"satisfy\"");
        }
        let t = match w.as_str() {
            "satisfy" => return Ok(Timing::Null),
            "immediately" | "initially" | "finally" | "eventually" | "always" | "never" => {
                self.i += 1;
                match w.as_str() {
                    "immediately" | "initially" => Timing::Immediately,
                    "finally" => Timing::Finally,
                    "eventually" => Timing::Eventually,
                    "always" => Timing::Always,
                    _ => Timing::Never,
                }
            }
            "within" | "for" | "after" => {
                self.i += 1;
                let (n, u) = self.duration()?;
                match w.as_str() {
                    "within" => Timing::Within(n, u),
                    "for" => Timing::For(n, u),
                    _ => Timing::After,
                }
            }
            "until" | "before" => {
                self.i += 1;
                let e = self.expr()?;
                if w == "until" {
                    Timing::Until(e)
                } else {
                    Timing::Before(e)
                }
            }
            "at" => {
                if !self.is_kw(i + 1, "the") {
                    return self.err(i + 1, "\"the\" (at the first/same/next/last timepoint)");
                }
                let which = self.src(i + 2).to_ascii_lowercase();
                if !matches!(which.as_str(), "first" | "same" | "next" | "last") {
                    return self.err(i + 2, "\"first\", \"same\", \"next\" or \"last\"");
                }
                if !self.is_kw(i + 3, "timepoint") {
                    return self.err(i + 3, "\"timepoint\"");
                }
                self.i += 4;
                match which.as_str() {
                    "first" | "same" => Timing::Immediately,
                    "next" => Timing::Next,
                    _ => Timing::Finally,
                }
            }
            _ => {
                return self.err(
                    i,
                    "a timing (immediately, at the next timepoint, within N, for N, after N, \
                     until C, before C, always, never, eventually, finally) or \"satisfy\"",
                )
            }
        };
        self.comma();
        Ok(t)
    }

    fn sentence(&mut self) -> Result<Sentence, Raw> {
        // Find `shall` (at the top level) to tell the component from the conditions.
        let Some(shall) = (0..self.toks.len()).find(|&k| self.is_kw(k, "shall")) else {
            return Err((
                self.at(0),
                "not a FRETish requirement: no \"shall\" ([scope] [condition] [the] component \
                 shall [timing] satisfy RESPONSE)"
                    .into(),
            ));
        };
        // `... [the] component shall` or `... shall [the] component`: the second when a
        // name after `shall` is followed by a timing, `satisfy`, `with` or a comma.
        let after_form = {
            let k = if self.is_kw(shall + 1, "the") {
                shall + 2
            } else {
                shall + 1
            };
            let name = self.kind(k) == Some(K::Word) && !is_keyword(self.src(k));
            let next = self.src(k + 1).to_ascii_lowercase();
            let follows = self.kind(k + 1) == Some(K::Comma)
                || matches!(next.as_str(), "satisfy" | "with")
                || TIMING_WORDS.contains(&next.as_str());
            (name && follows).then_some(k)
        };
        let before_is_name =
            shall > 0 && self.kind(shall - 1) == Some(K::Word) && !is_keyword(self.src(shall - 1));
        // `x shall sw ...` is ambiguous; without `the` after `shall`, the name before it
        // is the component.
        let after_form = after_form.filter(|_| !before_is_name || self.is_kw(shall + 1, "the"));
        let (prefix_end, after_shall) = if let Some(k) = after_form {
            (shall, k + 1)
        } else if before_is_name {
            let pe = if shall >= 2 && self.is_kw(shall - 2, "the") {
                shall - 2
            } else {
                shall - 1
            };
            (pe, shall + 1)
        } else {
            return self.err(
                shall + 1,
                "the component's name ([the] component shall ..., or shall [the] component ...)",
            );
        };
        // The part before the component: [scope] [condition].
        let all = std::mem::take(&mut self.toks);
        self.toks = all[..prefix_end].to_vec();
        self.i = 0;
        let scope = self.scope()?;
        let cond = self.condition()?;
        if self.i < self.toks.len() {
            let what = if cond.is_some() {
                "the component (the end of the condition)"
            } else if scope.kind != ScopeKind::Null {
                "a condition (upon, whenever, when, if, where, unless) or the component"
            } else {
                "a scope (in M, during M, while C, not in M, before M, after M, only ...), a \
                 condition (upon, whenever, when, if, where, unless) or the component"
            };
            return self.err(self.i, what);
        }
        self.toks = all;
        self.i = after_shall;
        // [with probability ...] [timing] satisfy RESPONSE
        let mut probability = None;
        self.comma();
        if self.is_kw(self.i, "with") {
            probability = Some(self.at(self.i));
            while self.i < self.toks.len()
                && !self.is_kw(self.i, "satisfy")
                && !TIMING_WORDS.contains(&self.src(self.i).to_ascii_lowercase().as_str())
            {
                self.i += 1;
            }
        }
        let timing_at = self.at(self.i);
        let t0 = self.i;
        let timing = self.timing()?;
        let timing_words = if self.i > t0 {
            let end = self.toks[self.i - 1].e;
            crate::one_line(self.text[timing_at..end].trim_end_matches(','))
        } else {
            String::new()
        };
        if !self.is_kw(self.i, "satisfy") {
            return self.err(self.i, "\"satisfy\"");
        }
        self.i += 1;
        let response = self.expr()?;
        if self.kind(self.i) == Some(K::Dot) {
            self.i += 1;
        }
        if self.i < self.toks.len() {
            let what = if self.kind(self.i) == Some(K::RPar) {
                "the end of the requirement (a \")\" that closes nothing)"
            } else {
                "an operator or the end of the requirement"
            };
            return self.err(self.i, what);
        }
        Ok(Sentence {
            scope,
            cond,
            timing,
            timing_at,
            timing_words,
            response,
            probability,
        })
    }
}

/// Parses one FRETish requirement. Errors are byte offsets in `text`.
pub(crate) fn parse(text: &str) -> Result<Sentence, Raw> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err((0, "an empty requirement".into()));
    }
    let mut p = P {
        text,
        toks,
        i: 0,
        depth: 0,
    };
    p.sentence()
}

/// Parses a FRETish expression alone (a mode's `modeRequirement`).
pub(crate) fn parse_expr(text: &str) -> Result<Expr, Raw> {
    let toks = lex(text)?;
    let mut p = P {
        text,
        toks,
        i: 0,
        depth: 0,
    };
    let e = p.expr()?;
    if p.i < p.toks.len() {
        return p.err(p.i, "an operator or the end of the expression");
    }
    Ok(e)
}

// ---------------------------------------------------------------------------------------
// Sorts

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sort {
    Bool,
    Int,
    Real,
}

impl Sort {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Sort::Bool => "Bool",
            Sort::Int => "Int",
            Sort::Real => "Real",
        }
    }
}

/// What a name stands for.
#[derive(Debug, Clone)]
pub(crate) enum Sym {
    /// A variable of a known sort.
    Var(Sort),
    /// A constant: its sort and its value's text (`2.0`, `-1`, `true`).
    Const(Sort, String),
    /// A mode defined by an expression (parsed).
    Mode(Box<Expr>),
    /// An internal variable FRET defines by an assignment that is not a literal (its
    /// text): not imported.
    Defined(String),
}

/// The words that start a timing (`within 3 ticks`, `always`, `until C`, ...).
const TIMING_WORDS: &[&str] = &[
    "within",
    "for",
    "after",
    "until",
    "before",
    "immediately",
    "initially",
    "at",
    "always",
    "never",
    "eventually",
    "finally",
];

/// The temporal functions FRET has and vera's one-state formulas do not.
const TEMPORAL: &[&str] = &[
    "preBool",
    "preInt",
    "preReal",
    "persisted",
    "occurred",
    "persists",
    "occurs",
    "nextOcc",
    "prevOcc",
];

/// Sort inference over every expression of a file: union-find over names and
/// comparison clusters.
#[derive(Default)]
pub(crate) struct Infer {
    parent: Vec<usize>,
    /// Per node: used as a condition (where), used as a number (where), saw a decimal,
    /// declared sort.
    bool_use: Vec<Option<(usize, usize)>>,
    num_use: Vec<Option<(usize, usize)>>,
    real: Vec<bool>,
    names: HashMap<String, usize>,
    /// The requirement being walked (an index the caller chooses).
    pub(crate) cur: usize,
    /// Problems found, with the requirement they are in.
    pub(crate) errors: Vec<(usize, Raw)>,
}

impl Infer {
    fn node(&mut self) -> usize {
        let n = self.parent.len();
        self.parent.push(n);
        self.bool_use.push(None);
        self.num_use.push(None);
        self.real.push(false);
        n
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        self.parent[b] = a;
        self.bool_use[a] = self.bool_use[a].or(self.bool_use[b]);
        self.num_use[a] = self.num_use[a].or(self.num_use[b]);
        self.real[a] |= self.real[b];
    }

    fn name(&mut self, n: &str) -> usize {
        if let Some(&i) = self.names.get(n) {
            return i;
        }
        let i = self.node();
        self.names.insert(n.to_string(), i);
        i
    }

    /// Whether `e` is a condition by its form alone (or by a declared sort).
    fn looks_bool(e: &Expr, syms: &HashMap<String, Sym>) -> bool {
        match &e.e {
            E::Bool(_) => true,
            E::Un(o, _) => *o == "!",
            E::Bin(o, ..) => matches!(
                *o,
                "&" | "|" | "xor" | "=>" | "<=>" | "=" | "!=" | "<" | "<=" | ">" | ">="
            ),
            E::Var(v) => matches!(
                syms.get(v),
                Some(Sym::Var(Sort::Bool) | Sym::Const(Sort::Bool, _) | Sym::Mode(_))
            ),
            _ => false,
        }
    }

    /// Walks `e` in a condition position, with `base` added to every error offset.
    pub(crate) fn walk_bool(&mut self, e: &Expr, syms: &HashMap<String, Sym>, base: usize) {
        match &e.e {
            E::Bool(_) => {}
            E::Num(s, _) => self.errors.push((
                self.cur,
                (
                    base + e.at,
                    format!("the number {s} where a condition is expected"),
                ),
            )),
            E::Var(v) => {
                if syms.contains_key(v) && !matches!(syms.get(v), Some(Sym::Defined(_))) {
                    return;
                }
                let n = self.name(v);
                let r = self.find(n);
                if self.bool_use[r].is_none() {
                    self.bool_use[r] = Some((self.cur, base + e.at));
                }
            }
            E::Call(f, args)
                if TEMPORAL.contains(&f.as_str()) && f != "preInt" && f != "preReal" =>
            {
                for a in args.iter().skip(1) {
                    self.walk_bool(a, syms, base);
                }
            }
            E::Call(f, _) if !is_arith_fn(f) => {}
            E::Un("!", x) => self.walk_bool(x, syms, base),
            E::Bin(o, l, r) if matches!(*o, "&" | "|" | "xor" | "=>" | "<=>") => {
                self.walk_bool(l, syms, base);
                self.walk_bool(r, syms, base);
            }
            E::Bin(o, l, r)
                if matches!(*o, "=" | "!=")
                    && (Self::looks_bool(l, syms) || Self::looks_bool(r, syms)) =>
            {
                self.walk_bool(l, syms, base);
                self.walk_bool(r, syms, base);
            }
            E::Bin(o, l, r) if matches!(*o, "=" | "!=" | "<" | "<=" | ">" | ">=") => {
                let c = self.node();
                self.walk_num(l, syms, base, c);
                self.walk_num(r, syms, base, c);
            }
            _ => self.errors.push((
                self.cur,
                (
                    base + e.at,
                    "a number where a condition is expected".to_string(),
                ),
            )),
        }
    }

    fn walk_num(&mut self, e: &Expr, syms: &HashMap<String, Sym>, base: usize, c: usize) {
        match &e.e {
            E::Num(_, dec) => {
                if *dec {
                    let r = self.find(c);
                    self.real[r] = true;
                }
            }
            E::Var(v) => match syms.get(v) {
                Some(Sym::Var(Sort::Real) | Sym::Const(Sort::Real, _)) => {
                    let r = self.find(c);
                    self.real[r] = true;
                }
                Some(Sym::Var(_) | Sym::Const(..) | Sym::Mode(_)) => {}
                Some(Sym::Defined(_)) | None => {
                    let n = self.name(v);
                    let r = self.find(n);
                    if self.num_use[r].is_none() {
                        self.num_use[r] = Some((self.cur, base + e.at));
                    }
                    self.union(c, n);
                }
            },
            E::Un("neg", x) => self.walk_num(x, syms, base, c),
            E::Bin(o, l, r) if matches!(*o, "+" | "-" | "*" | "/" | "mod" | "^") => {
                self.walk_num(l, syms, base, c);
                self.walk_num(r, syms, base, c);
            }
            E::Call(f, args) if is_arith_fn(f) => {
                if f.ends_with("Real") {
                    let r = self.find(c);
                    self.real[r] = true;
                }
                for a in args {
                    self.walk_num(a, syms, base, c);
                }
            }
            E::Call(..) => {}
            _ => self.errors.push((
                self.cur,
                (
                    base + e.at,
                    "a condition where a number is expected".to_string(),
                ),
            )),
        }
    }

    /// The inferred sort of every name not in `syms`, and the names inferred (for a
    /// note). Conflicts are errors.
    pub(crate) fn resolve(&mut self) -> (HashMap<String, Sort>, Vec<(usize, Raw)>) {
        let mut out = HashMap::new();
        let mut errs = std::mem::take(&mut self.errors);
        let names: Vec<(String, usize)> = self.names.iter().map(|(k, v)| (k.clone(), *v)).collect();
        for (name, n) in names {
            let r = self.find(n);
            let sort = match (self.bool_use[r], self.num_use[r]) {
                (Some(b), Some(m)) => {
                    let (req, at) = b.max(m);
                    errs.push((
                        req,
                        (
                            at,
                            format!("{name} is used both as a condition and as a number"),
                        ),
                    ));
                    continue;
                }
                (Some(_), None) => Sort::Bool,
                (None, _) if self.real[r] => Sort::Real,
                (None, _) => Sort::Int,
            };
            out.insert(name, sort);
        }
        (out, errs)
    }
}

fn is_arith_fn(f: &str) -> bool {
    matches!(
        f,
        "absReal" | "absInt" | "minReal" | "minInt" | "maxReal" | "maxInt"
    )
}

// ---------------------------------------------------------------------------------------
// SMT-LIB

/// Writes expressions as SMT-LIB once every name's sort is known.
pub(crate) struct Smt<'a> {
    pub syms: &'a HashMap<String, Sym>,
    pub inferred: &'a HashMap<String, Sort>,
    /// Constants replaced, for a note.
    pub consts_used: Vec<String>,
    /// Variables used (to declare only those).
    pub vars_used: Vec<String>,
}

impl Smt<'_> {
    fn var_sort(&self, v: &str) -> Option<Sort> {
        match self.syms.get(v) {
            Some(Sym::Var(s)) | Some(Sym::Const(s, _)) => Some(*s),
            Some(Sym::Mode(_)) => Some(Sort::Bool),
            Some(Sym::Defined(_)) | None => self.inferred.get(v).copied(),
        }
    }

    fn defined(&self, v: &str, at: usize) -> Result<(), Raw> {
        match self.syms.get(v) {
            Some(Sym::Defined(a)) => Err((
                at,
                format!(
                    "internal variable {v} is defined in FRET by the assignment \"{}\", which is \
                     not imported (only literal assignments are)",
                    crate::one_line(a)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The sort of a numeric term: Real if any leaf is Real or a decimal.
    fn num_sort(&self, e: &Expr) -> Sort {
        let mut real = false;
        self.visit_num(e, &mut real);
        if real {
            Sort::Real
        } else {
            Sort::Int
        }
    }

    fn visit_num(&self, e: &Expr, real: &mut bool) {
        match &e.e {
            E::Num(_, d) => *real |= *d,
            E::Var(v) => *real |= self.var_sort(v) == Some(Sort::Real),
            E::Un(_, x) => self.visit_num(x, real),
            E::Bin(_, l, r) => {
                self.visit_num(l, real);
                self.visit_num(r, real);
            }
            E::Call(f, args) => {
                *real |= f.ends_with("Real");
                for a in args {
                    self.visit_num(a, real);
                }
            }
            E::Bool(_) => {}
        }
    }

    /// True when `e` is the number zero as written: `0`, `0.0`, `-0`, or a constant
    /// whose value is one of those.
    fn zero(&self, e: &Expr) -> bool {
        let zero_text = |t: &str| {
            let t = t.trim_start_matches('-');
            !t.is_empty() && t.chars().all(|c| c == '0' || c == '.')
        };
        match &e.e {
            E::Num(t, _) => zero_text(t),
            E::Un("neg", x) => self.zero(x),
            E::Var(v) => matches!(self.syms.get(v), Some(Sym::Const(_, val)) if zero_text(val)),
            _ => false,
        }
    }

    /// True when `e` has no variable (a constant term).
    fn constant(&self, e: &Expr) -> bool {
        match &e.e {
            E::Num(..) | E::Bool(_) => true,
            E::Var(v) => matches!(self.syms.get(v), Some(Sym::Const(..))),
            E::Un(_, x) => self.constant(x),
            E::Bin(_, l, r) => self.constant(l) && self.constant(r),
            E::Call(_, a) => a.iter().all(|x| self.constant(x)),
        }
    }

    fn use_var(&mut self, v: &str) {
        if !self.vars_used.iter().any(|u| u == v) {
            self.vars_used.push(v.to_string());
        }
    }

    /// A condition; errors carry `base + offset`.
    pub(crate) fn bool(&mut self, e: &Expr, base: usize) -> Result<String, Raw> {
        Ok(match &e.e {
            E::Bool(b) => b.to_string(),
            E::Var(v) => match self.syms.get(v) {
                Some(Sym::Defined(_)) => return Err(self.defined(v, base + e.at).unwrap_err()),
                Some(Sym::Const(Sort::Bool, val)) => {
                    self.note_const(v, val);
                    val.clone()
                }
                Some(Sym::Mode(m)) => {
                    let m = m.clone();
                    return self
                        .bool(&m, base)
                        .map_err(|(_, msg)| (base + e.at, format!("in the mode {v}: {msg}")));
                }
                _ => {
                    if self.var_sort(v) != Some(Sort::Bool) {
                        return Err((
                            base + e.at,
                            format!(
                                "{v} is {} where a condition is expected",
                                self.var_sort(v).map_or("not declared", |s| s.name())
                            ),
                        ));
                    }
                    self.use_var(v);
                    v.clone()
                }
            },
            E::Un(_, x) if matches!(e.e, E::Un("!", _)) => format!("(not {})", self.bool(x, base)?),
            E::Bin(o, ..) if matches!(*o, "&" | "|") => {
                // A chain of one operator is one n-ary term: `a | b | ... | z` nested a
                // thousand deep would be deeper than the spec loader reads.
                let name = if *o == "&" { "and" } else { "or" };
                let mut t = format!("({name}");
                for x in operands(e, o) {
                    t.push(' ');
                    t.push_str(&self.bool(x, base)?);
                }
                t.push(')');
                t
            }
            E::Bin(o, l, r) if matches!(*o, "xor" | "=>" | "<=>") => {
                let name = match *o {
                    "&" => "and",
                    "|" => "or",
                    "xor" => "xor",
                    "=>" => "=>",
                    _ => "=",
                };
                format!("({name} {} {})", self.bool(l, base)?, self.bool(r, base)?)
            }
            E::Bin(o, l, r) if matches!(*o, "=" | "!=") && (self.is_bool(l) || self.is_bool(r)) => {
                let (a, b) = (self.bool(l, base)?, self.bool(r, base)?);
                if *o == "=" {
                    format!("(= {a} {b})")
                } else {
                    format!("(distinct {a} {b})")
                }
            }
            E::Bin(o, l, r) if matches!(*o, "=" | "!=" | "<" | "<=" | ">" | ">=") => {
                let s = if self.num_sort(l) == Sort::Real || self.num_sort(r) == Sort::Real {
                    Sort::Real
                } else {
                    Sort::Int
                };
                let (a, b) = (self.num(l, s, base)?, self.num(r, s, base)?);
                match *o {
                    "!=" => format!("(distinct {a} {b})"),
                    o => format!("({o} {a} {b})"),
                }
            }
            E::Call(f, _) => return Err(call_error(f, base + e.at)),
            E::Num(s, _) => {
                return Err((
                    base + e.at,
                    format!("the number {s} where a condition is expected"),
                ))
            }
            _ => return Err((base + e.at, "a number where a condition is expected".into())),
        })
    }

    fn is_bool(&self, e: &Expr) -> bool {
        match &e.e {
            E::Var(v) => self.var_sort(v) == Some(Sort::Bool),
            E::Bool(_) => true,
            E::Un(o, _) => *o == "!",
            E::Bin(o, ..) => matches!(
                *o,
                "&" | "|" | "xor" | "=>" | "<=>" | "=" | "!=" | "<" | "<=" | ">" | ">="
            ),
            _ => false,
        }
    }

    fn note_const(&mut self, v: &str, val: &str) {
        let entry = format!("{v} = {val}");
        if !self.consts_used.contains(&entry) {
            self.consts_used.push(entry);
        }
    }

    /// A number of sort `s` (Int terms in a Real term are converted).
    fn num(&mut self, e: &Expr, s: Sort, base: usize) -> Result<String, Raw> {
        let at = base + e.at;
        Ok(match &e.e {
            E::Num(t, dec) => {
                if s == Sort::Real && !dec {
                    format!("{t}.0")
                } else if s == Sort::Int && *dec {
                    return Err((at, format!("the decimal {t} in an Int term")));
                } else {
                    t.clone()
                }
            }
            E::Var(v) => match self.syms.get(v) {
                Some(Sym::Defined(_)) => return Err(self.defined(v, at).unwrap_err()),
                Some(Sym::Const(Sort::Bool, _)) | Some(Sym::Mode(_)) => {
                    return Err((at, format!("{v} is a condition where a number is expected")))
                }
                Some(Sym::Const(cs, val)) => {
                    let (cs, val) = (*cs, val.clone());
                    self.note_const(v, &val);
                    let neg = val.starts_with('-');
                    let digits = val.trim_start_matches('-');
                    let lit = if s == Sort::Real && !digits.contains('.') {
                        format!("{digits}.0")
                    } else if s == Sort::Int && cs == Sort::Real {
                        match digits.strip_suffix(".0") {
                            Some(d) if !d.contains('.') => d.to_string(),
                            _ => return Err((at, format!("the Real constant {v} in an Int term"))),
                        }
                    } else {
                        digits.to_string()
                    };
                    if neg {
                        format!("(- {lit})")
                    } else {
                        lit
                    }
                }
                _ => match self.var_sort(v) {
                    Some(Sort::Bool) => {
                        return Err((at, format!("{v} is a condition where a number is expected")))
                    }
                    None => return Err((at, format!("{v} is not declared"))),
                    Some(Sort::Int) if s == Sort::Real => {
                        self.use_var(v);
                        format!("(to_real {v})")
                    }
                    Some(_) => {
                        self.use_var(v);
                        v.clone()
                    }
                },
            },
            E::Un("neg", x) => format!("(- {})", self.num(x, s, base)?),
            E::Bin(o, l, r) if *o == "-" => {
                format!("(- {} {})", self.num(l, s, base)?, self.num(r, s, base)?)
            }
            E::Bin(o, ..) if matches!(*o, "+" | "*") => {
                // A chain of one operator is one n-ary term (see `bool`).
                let xs = operands(e, o);
                if *o == "*" && xs.iter().filter(|x| !self.constant(x)).count() > 1 {
                    return Err((
                        at,
                        "a product of two variable terms: vera's specs are linear".into(),
                    ));
                }
                let mut t = format!("({o}");
                for x in xs {
                    t.push(' ');
                    t.push_str(&self.num(x, s, base)?);
                }
                t.push(')');
                t
            }
            E::Bin(o, l, r) if matches!(*o, "/" | "mod") => {
                if !self.constant(r) {
                    return Err((
                        at,
                        format!("{o} by a variable term: vera's specs are linear"),
                    ));
                }
                if self.zero(r) {
                    return Err((
                        base + r.at,
                        format!(
                            "{o} by zero: SMT-LIB leaves its value unspecified, and vera's specs refuse it"
                        ),
                    ));
                }
                let name = match (*o, s) {
                    ("/", Sort::Real) => "/",
                    ("/", _) => "div",
                    (_, Sort::Int) => "mod",
                    _ => return Err((at, "mod on Real terms".into())),
                };
                format!(
                    "({name} {} {})",
                    self.num(l, s, base)?,
                    self.num(r, s, base)?
                )
            }
            E::Bin("^", ..) => {
                return Err((
                    at,
                    "^ (power) is not supported: vera's specs are linear".into(),
                ))
            }
            E::Call(f, args) if is_arith_fn(f) => {
                let want = if f.starts_with("abs") { 1 } else { 2 };
                if args.len() != want {
                    return Err((at, format!("{f} takes {want} argument(s)")));
                }
                let a = self.num(&args[0], s, base)?;
                if f.starts_with("abs") {
                    if s == Sort::Int {
                        format!("(abs {a})")
                    } else {
                        format!("(ite (>= {a} 0.0) {a} (- {a}))")
                    }
                } else {
                    let b = self.num(&args[1], s, base)?;
                    let cmp = if f.starts_with("max") { ">=" } else { "<=" };
                    format!("(ite ({cmp} {a} {b}) {a} {b})")
                }
            }
            E::Call(f, _) => return Err(call_error(f, at)),
            _ => return Err((at, "a condition where a number is expected".into())),
        })
    }
}

/// The error for a function vera does not import.
/// The operands of a chain of `op` (`a op b op c`, nested either way), in order;
/// iterative, so a chain of any length is no deep recursion.
fn operands<'e>(e: &'e Expr, op: &str) -> Vec<&'e Expr> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        match &x.e {
            E::Bin(o, l, r) if *o == op => {
                todo.push(r);
                todo.push(l);
            }
            _ => out.push(x),
        }
    }
    out
}

/// The deepest nesting of parentheses vera's spec loader reads in a formula (the
/// s-expression reader's limit in `logic`).
pub(crate) const LOADER_DEPTH: usize = 1000;

/// How deep the parentheses of an SMT-LIB formula nest (a `|quoted symbol|` is one
/// atom).
pub(crate) fn smt_depth(t: &str) -> usize {
    let (mut depth, mut max, mut quoted) = (0usize, 0usize, false);
    for c in t.chars() {
        match c {
            '|' => quoted = !quoted,
            '(' if !quoted => {
                depth += 1;
                max = max.max(depth);
            }
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn call_error(f: &str, at: usize) -> Raw {
    if TEMPORAL.contains(&f) {
        (
            at,
            format!(
                "{f}(...) is not supported here: a vera formula speaks of one state (only \
                 `whenever persisted(N, P)`, `whenever occurred(N, P)` and `never satisfy \
                 persisted(N, P)` are imported)"
            ),
        )
    } else if is_arith_fn(f) {
        (
            at,
            format!("{f}(...) is a number where a condition is expected"),
        )
    } else {
        (
            at,
            format!("function {f}(...) is not supported (only absReal, absInt, minReal, minInt, maxReal and maxInt are)"),
        )
    }
}

/// Scans an expression for `FTP` and temporal functions, named errors at their place.
pub(crate) fn unsupported_names(e: &Expr, base: usize, out: &mut Vec<Raw>) {
    match &e.e {
        E::Var(v) if v == "FTP" => out.push((
            base + e.at,
            "FTP (FRET's first-timepoint predicate) is not supported: a vera formula speaks of \
             one state"
                .into(),
        )),
        E::Un(_, x) => unsupported_names(x, base, out),
        E::Bin(_, l, r) => {
            unsupported_names(l, base, out);
            unsupported_names(r, base, out);
        }
        E::Call(f, args) => {
            if !is_arith_fn(f) {
                out.push(call_error(f, base + e.at));
            }
            for a in args {
                unsupported_names(a, base, out);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------
// The mapping to vera's patterns

/// The `[requirements.timed]` keys of one requirement (SMT-LIB formulas and durations).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub(crate) struct Timed {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_while: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initially: Option<bool>,
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_for: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within_last: Option<String>,
    pub then: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
    #[serde(rename = "for", skip_serializing_if = "Option::is_none")]
    pub for_: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
}

/// What the mapping found worth a note, by kind.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Flags {
    /// An obligation in a bounded scope that vera keeps after the interval ends.
    pub scope_end: bool,
    /// A `before C` timing (FRET also fails a trigger where `C` holds).
    pub before: bool,
    /// A duration written in a unit other than ticks.
    pub unit: bool,
}

fn ticks(n: u64) -> String {
    format!("{n} ticks")
}

/// The `persisted(N, P)` / `occurred(N, P)` call of `e`, when `e` is exactly one.
fn temporal_call<'e>(e: &'e Expr, f: &str) -> Option<(&'e Expr, &'e Expr)> {
    match &e.e {
        E::Call(name, args) if name == f && args.len() == 2 => Some((&args[0], &args[1])),
        _ => None,
    }
}

/// `N` of `persisted(N, P)`: a whole number literal.
fn call_count(n: &Expr, base: usize) -> Result<u64, Raw> {
    match &n.e {
        E::Num(s, false) => s
            .parse::<u64>()
            .ok()
            .filter(|&v| v <= MAX_TICKS)
            .ok_or((base + n.at, format!("the count {s} is too large"))),
        _ => Err((
            base + n.at,
            "the first argument of persisted/occurred must be a whole number".into(),
        )),
    }
}

/// Maps a parsed sentence to vera's timed keys. `base` is added to error offsets.
pub(crate) fn lower(
    s: &Sentence,
    smt: &mut Smt<'_>,
    base: usize,
    flags: &mut Flags,
) -> Result<Timed, Vec<Raw>> {
    let mut errs = refused(s, base);
    let temporal = Temporal::of(s, base, &mut errs);
    let parts = Parts::of(s, &temporal);
    for e in parts.all() {
        unsupported_names(e, base, &mut errs);
    }
    if !errs.is_empty() {
        errs.sort();
        errs.dedup();
        return Err(errs);
    }
    let formulas = Formulas {
        scope: parts.scope.map(|e| formula(smt, e, base, &mut errs)),
        cond: parts.cond.map(|e| formula(smt, e, base, &mut errs)),
        resp: formula(smt, parts.resp, base, &mut errs),
        stop: parts.stop.map(|e| formula(smt, e, base, &mut errs)),
    };
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(timed_keys(s, &temporal, formulas, flags))
}

/// The constructs of `s` that vera refuses, by name: a probability, the after- and
/// only-scopes, and the timings without a counterpart.
fn refused(s: &Sentence, base: usize) -> Vec<Raw> {
    let mut errs: Vec<Raw> = Vec::new();
    let mut refuse = |at: usize, m: String| errs.push((base + at, m));
    if let Some(p) = s.probability {
        refuse(
            p,
            "a probability (with probability ...) is not supported: vera's timed patterns are \
             not probabilistic"
                .into(),
        );
    }
    match s.scope.kind {
        ScopeKind::After => refuse(
            s.scope.at,
            format!(
                "scope not supported: \"{}\" (FRET's after-scope starts when the first {} interval \
                 has ended; vera's scope_after starts where a formula first holds)",
                s.scope.words,
                if s.scope.is_mode { "mode" } else { "condition" }
            ),
        ),
        ScopeKind::OnlyIn | ScopeKind::OnlyAfter | ScopeKind::OnlyBefore => refuse(
            s.scope.at,
            format!(
                "scope not supported: \"{}\" (an only-scope forbids the response outside the \
                 scope, a negated timing vera has no pattern for)",
                s.scope.words
            ),
        ),
        _ => {}
    }
    let tw = if s.timing_words.is_empty() {
        "no timing (FRET's default: eventually)".to_string()
    } else {
        format!("\"{}\"", s.timing_words)
    };
    match &s.timing {
        Timing::Null | Timing::Eventually => refuse(
            s.timing_at,
            format!("timing not supported: {tw}: an unbounded eventually has no counterpart in vera's timed patterns (give a bound: within N ticks)"),
        ),
        Timing::Finally => refuse(
            s.timing_at,
            format!("timing not supported: {tw}: vera's patterns have no last-timepoint obligation"),
        ),
        Timing::After => refuse(
            s.timing_at,
            format!("timing not supported: {tw}: FRET asks the response false for N+1 points and true at the next; no one vera pattern says both"),
        ),
        _ => {}
    }
    errs
}

/// The temporal predicates of a sentence in the positions that have a counterpart.
struct Temporal<'e> {
    /// `persisted(N, P)` (`held_for`) or `occurred(N, P)` (`within_last`) as the
    /// condition of a global `whenever`.
    cond: Option<(&'static str, u64, &'e Expr)>,
    /// `never persisted(N, P)` as the response of a global unconditional sentence.
    resp: Option<(u64, &'e Expr)>,
}

impl<'e> Temporal<'e> {
    /// Finds the temporal predicates of `s`; a bad count goes to `errs`.
    fn of(s: &'e Sentence, base: usize, errs: &mut Vec<Raw>) -> Temporal<'e> {
        let global = s.scope.kind == ScopeKind::Null;
        let mut cond: Option<(&'static str, u64, &Expr)> = None;
        if let Some(c) = &s.cond {
            for (f, key) in [("persisted", "held_for"), ("occurred", "within_last")] {
                if let Some((n, p)) = temporal_call(&c.expr, f) {
                    if c.holding && global {
                        match call_count(n, base) {
                            Ok(n) => cond = Some((key, n, p)),
                            Err(e) => errs.push(e),
                        }
                    }
                }
            }
        }
        let mut resp: Option<(u64, &Expr)> = None;
        if let (Timing::Never, None, true) = (&s.timing, &s.cond, global) {
            if let Some((n, p)) = temporal_call(&s.response, "persisted") {
                match call_count(n, base) {
                    Ok(n) => resp = Some((n, p)),
                    Err(e) => errs.push(e),
                }
            }
        }
        Temporal { cond, resp }
    }
}

/// The expressions of a sentence that become formulas (a temporal predicate by its
/// argument).
struct Parts<'e> {
    scope: Option<&'e Expr>,
    cond: Option<&'e Expr>,
    resp: &'e Expr,
    stop: Option<&'e Expr>,
}

impl<'e> Parts<'e> {
    /// The parts of `s`, with the temporal predicates `temporal` found in it.
    fn of(s: &'e Sentence, temporal: &Temporal<'e>) -> Parts<'e> {
        Parts {
            scope: s.scope.expr.as_ref(),
            cond: match (&s.cond, temporal.cond) {
                (Some(_), Some((_, _, p))) => Some(p),
                (Some(c), None) => Some(&c.expr),
                _ => None,
            },
            resp: match temporal.resp {
                Some((_, p)) => p,
                None => &s.response,
            },
            stop: match &s.timing {
                Timing::Until(e) | Timing::Before(e) => Some(e),
                _ => None,
            },
        }
    }

    /// Every part, in the order scope, condition, response, stop.
    fn all(&self) -> Vec<&'e Expr> {
        let mut exprs: Vec<&Expr> = Vec::new();
        exprs.extend(self.scope);
        exprs.extend(self.cond);
        exprs.push(self.resp);
        exprs.extend(self.stop);
        exprs
    }
}

/// The SMT-LIB formulas of a sentence's parts.
struct Formulas {
    scope: Option<String>,
    cond: Option<String>,
    resp: String,
    stop: Option<String>,
}

/// `e` as an SMT-LIB formula; when it cannot be written or nests too deep for the spec
/// loader, the error goes to `errs` and the formula is empty.
fn formula(smt: &mut Smt<'_>, e: &Expr, base: usize, errs: &mut Vec<Raw>) -> String {
    match smt.bool(e, base) {
        Ok(s) if smt_depth(&s) > LOADER_DEPTH => {
            errs.push((
                base + e.at,
                format!(
                    "the condition nests {} levels deep once written in SMT-LIB, more than the {LOADER_DEPTH} vera's spec loader reads: split it into several conditions, or use one operator for a long chain",
                    smt_depth(&s)
                ),
            ));
            String::new()
        }
        Ok(s) => s,
        Err(x) => {
            errs.push(x);
            String::new()
        }
    }
}

/// The timed keys of a sentence from its formulas: the scope, the response, the
/// trigger and the timing.
fn timed_keys(s: &Sentence, temporal: &Temporal, f: Formulas, flags: &mut Flags) -> Timed {
    let mut t = Timed::default();
    // The interval formula of a mode scope.
    let interval = match (s.scope.kind, &f.scope) {
        (ScopeKind::In, Some(m)) => Some(m.clone()),
        (ScopeKind::NotIn, Some(m)) => Some(format!("(not {m})")),
        _ => None,
    };
    let before = match (s.scope.kind, &f.scope) {
        (ScopeKind::Before, Some(m)) => Some(m.clone()),
        _ => None,
    };
    t.scope_before = before.clone();
    let (always, negate) = match s.timing {
        Timing::Always => (true, false),
        Timing::Never => (true, true),
        _ => (false, false),
    };
    let resp = f.resp;
    let plain = resp.clone();
    t.then = if negate {
        format!("(not {resp})")
    } else {
        resp
    };
    if let Some((n, _)) = temporal.resp {
        // never persisted(N, P): P may not hold at N+1 consecutive points.
        t.if_ = Some(plain);
        t.held_for = Some(ticks(n));
        t.then = "false".into();
        return t;
    }
    // The end of the interval (`E`: the first step where `I` no longer holds, or
    // where `M` holds).
    let end = match (&interval, &before) {
        (Some(_), _) if s.scope.kind == ScopeKind::NotIn => f.scope.clone(),
        (Some(m), _) => Some(format!("(not {m})")),
        (None, Some(b)) => Some(b.clone()),
        _ => None,
    };
    trigger(&mut t, s, f.cond, temporal, &interval, &end, always);
    timing(&mut t, &s.timing, f.stop, &end, flags);
    t
}

/// The trigger keys: the condition (within the mode's interval) with its temporal
/// predicate and, for an always-timing, the end of the interval as its `until`; without a
/// condition, every step of the scope or its start.
fn trigger(
    t: &mut Timed,
    s: &Sentence,
    cond_f: Option<String>,
    temporal: &Temporal,
    interval: &Option<String>,
    end: &Option<String>,
    always: bool,
) {
    match (&cond_f, &s.cond) {
        (None, _) => {
            if always {
                // Every step of the scope: globally, in every interval, before M.
                t.scope_while = interval.clone();
            } else if let Some(m) = interval {
                t.when = Some(m.clone());
            } else {
                t.initially = Some(true);
            }
        }
        (Some(c), Some(cond)) => {
            let trig = match interval {
                Some(m) => format!("(and {m} {c})"),
                None => c.clone(),
            };
            if cond.holding {
                t.if_ = Some(trig);
            } else {
                t.when = Some(trig);
            }
            if let Some((key, n, _)) = temporal.cond {
                if key == "held_for" {
                    t.held_for = Some(ticks(n));
                } else {
                    t.within_last = Some(ticks(n));
                }
            }
            if always {
                t.until = Some(end.clone().unwrap_or_else(|| "false".into()));
            }
        }
        _ => {}
    }
}

/// The timing keys. In a mode scope and before `M`, the end of the interval `end`
/// releases FRET's obligations: for `next` and `within` the response is `(or S E)`, for
/// `until C` the stop is `(or C E)`, which is exactly FRET's reading; `for` and `before`
/// keep vera's own rule (stricter), with a note.
fn timing(
    t: &mut Timed,
    timing: &Timing,
    stop: Option<String>,
    end: &Option<String>,
    flags: &mut Flags,
) {
    match timing {
        Timing::Next => t.next = Some(true),
        Timing::Within(n, u) => {
            t.within = Some(ticks(*n));
            flags.unit |= *u != "ticks";
        }
        Timing::For(n, u) => {
            t.for_ = Some(ticks(*n));
            flags.unit |= *u != "ticks";
        }
        Timing::Until(_) => t.until = stop,
        Timing::Before(_) => {
            t.before = stop;
            flags.before = true;
        }
        _ => {}
    }
    if let Some(e) = end {
        match timing {
            Timing::Next | Timing::Within(..) => t.then = format!("(or {} {e})", t.then),
            Timing::Until(_) => {
                t.until = t.until.take().map(|c| format!("(or {c} {e})"));
            }
            Timing::For(..) | Timing::Before(_) => flags.scope_end = true,
            _ => {}
        }
    }
}

/// The variable names of an expression with their offsets (not function names).
pub(crate) fn names(e: &Expr, out: &mut Vec<(String, usize)>) {
    match &e.e {
        E::Var(v) => out.push((v.clone(), e.at)),
        E::Un(_, x) => names(x, out),
        E::Bin(_, l, r) => {
            names(l, out);
            names(r, out);
        }
        E::Call(_, args) => args.iter().for_each(|a| names(a, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> String {
        parse(s)
            .map(|x| x.key())
            .unwrap_or_else(|e| format!("error at {}: {}", e.0, e.1))
    }

    #[test]
    fn sentence_shapes() {
        assert_eq!(key("the sw shall always satisfy p"), "null,null,always");
        assert_eq!(
            key("upon a the sw shall within 3 ticks satisfy b"),
            "null,regular,within"
        );
        assert_eq!(
            key("whenever a sw shall at the next timepoint satisfy b"),
            "null,holding,next"
        );
        assert_eq!(
            key("in roll_hold mode RollAutopilot shall immediately satisfy p"),
            "in,null,immediately"
        );
        assert_eq!(
            key("When in hdg when x > 2 Autopilot shall immediately satisfy p"),
            "in,regular,immediately"
        );
        assert_eq!(
            key("while (a & !b) Autopilot shall always satisfy p"),
            "in,null,always"
        );
        assert_eq!(
            key("when not in m the sw shall never satisfy p"),
            "notin,null,never"
        );
        assert_eq!(
            key("before m the sw shall always satisfy p"),
            "before,null,always"
        );
        assert_eq!(
            key("after m the sw shall always satisfy p"),
            "after,null,always"
        );
        assert_eq!(
            key("only after arming mode shall the system eventually satisfy fired"),
            "onlyAfter,null,eventually"
        );
        assert_eq!(
            key("when a, the sw shall until (b | c) satisfy d"),
            "null,regular,until"
        );
        assert_eq!(
            key("the sw shall, before b, satisfy c."),
            "null,null,before"
        );
        assert_eq!(
            key("whenever a, whenever b the sw shall satisfy c"),
            "null,holding,null"
        );
        assert_eq!(
            key("whenever a and when b the sw shall satisfy c"),
            "null,regular,null"
        );
        assert_eq!(
            key("during m the sw shall always satisfy p"),
            "in,null,always"
        );
        assert_eq!(
            key("upon go shall the sw always satisfy s"),
            "null,regular,always"
        );
        assert_eq!(
            key("upon go sw shall always satisfy s"),
            "null,regular,always"
        );
        assert_eq!(
            key("if in m, the sw shall never satisfy p"),
            "in,null,never"
        );
        assert_eq!(
            key("except while x > 1 the sw shall always satisfy p"),
            "notin,null,always"
        );
        assert_eq!(
            key("except in mode m the sw shall always satisfy p"),
            "notin,null,always"
        );
        assert_eq!(
            key("only before m the sw shall immediately satisfy p"),
            "onlyBefore,null,immediately"
        );
        assert_eq!(
            key("only while c the sw shall always satisfy p"),
            "onlyIn,null,always"
        );
        assert_eq!(
            key("where a is true the sw shall at the same timepoint satisfy p"),
            "null,regular,immediately"
        );
        assert_eq!(
            key("and upon a the sw shall initially satisfy p"),
            "null,regular,immediately"
        );
        assert_eq!(
            key("upon a the sw shall at the last timepoint satisfy p"),
            "null,regular,finally"
        );
    }

    #[test]
    fn errors_are_located() {
        let e = parse("the sw shall sometimes satisfy p").unwrap_err();
        assert_eq!(e.0, 13);
        assert!(e.1.contains("timing"), "{}", e.1);
        let e = parse("the sw shall always satisfy (a & b").unwrap_err();
        assert_eq!(e.0, 34, "{e:?}");
        let e = parse("the sw shall always satisfy a & b)").unwrap_err();
        assert!(e.1.contains("closes nothing"), "{e:?}");
        let e = parse("the sw will always satisfy p").unwrap_err();
        assert!(e.1.contains("shall"));
    }
}

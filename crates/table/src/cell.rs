//! The cell parser: the shapes fee and rate tables write their conditions and outcomes
//! in, read deterministically into exact rationals.
//!
//! * Amounts: `52886`, `52,886`, `$52,886`, `3.49`, `0.39 EUR`, `USD 10`, `-5`, `2 lbs`.
//!   A comma groups thousands only when exactly three digits follow it (`1,5` is not a
//!   number: a decimal comma is refused rather than guessed).
//! * Intervals: `50.00 - 500.00` (en and em dashes, `to`, `through` too), `between A and
//!   B`, `from A to B`, `> A`, `>= A`, `≥ A`, `< A`, `<= A`, `≤ A`, `= A`, `more than A`,
//!   `over A`, `above A`, `at least A`, `A or more`, `A and over`, `A+`, `less than A`,
//!   `under A`, `below A`, `up to A`, `not over A`, `at most A`, `A or less`, `any`, and
//!   conjunctions `> 500 and <= 5000`. A bare amount is [`Condition::Bare`]: what it
//!   means (a step's upper end, a point) is decided by the column (see
//!   [`crate::BareMode`]).
//! * Outcomes: an amount, a percentage, or a sum of both (`3.49% + 0.39 EUR`), or
//!   `free` (zero).
//! * Rule sentences: `if amount is between 50.00 - 500.00 USD, then 2%`.
//!
//! Words are matched without regard to case. Anything else is a [`CellError`] with the
//! character offset in the cell where reading stopped; nothing here panics on any input
//! (property-tested on random text).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use std::fmt;

/// The longest cell the parser reads, in characters; a longer cell is a [`CellError`].
pub const MAX_CELL_CHARS: usize = 500;

/// The most digits a number may have (before and after the point together).
pub const MAX_DIGITS: usize = 60;

/// One end of an interval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The value.
    pub value: BigRational,
    /// Whether the value itself belongs to the interval.
    pub inclusive: bool,
}

impl Bound {
    /// An inclusive bound.
    pub fn closed(value: BigRational) -> Bound {
        Bound {
            value,
            inclusive: true,
        }
    }
    /// An exclusive bound.
    pub fn open(value: BigRational) -> Bound {
        Bound {
            value,
            inclusive: false,
        }
    }
}

/// A set of numbers `lo ⋯ hi`; a missing end is unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Interval {
    /// The lower end, if any.
    pub lo: Option<Bound>,
    /// The upper end, if any.
    pub hi: Option<Bound>,
}

impl Interval {
    /// Every number.
    pub fn all() -> Interval {
        Interval::default()
    }

    /// `[a, b]`.
    pub fn closed(a: BigRational, b: BigRational) -> Interval {
        Interval {
            lo: Some(Bound::closed(a)),
            hi: Some(Bound::closed(b)),
        }
    }

    /// `[a, a]`.
    pub fn point(a: BigRational) -> Interval {
        Interval::closed(a.clone(), a)
    }

    /// True when no number is in it.
    pub fn is_empty(&self) -> bool {
        match (&self.lo, &self.hi) {
            (Some(l), Some(h)) => {
                l.value > h.value || (l.value == h.value && !(l.inclusive && h.inclusive))
            }
            _ => false,
        }
    }

    /// True when `x` is in it.
    pub fn contains(&self, x: &BigRational) -> bool {
        let lo_ok = self.lo.as_ref().is_none_or(|b| {
            if b.inclusive {
                *x >= b.value
            } else {
                *x > b.value
            }
        });
        let hi_ok = self.hi.as_ref().is_none_or(|b| {
            if b.inclusive {
                *x <= b.value
            } else {
                *x < b.value
            }
        });
        lo_ok && hi_ok
    }

    /// The numbers in both.
    pub fn intersect(&self, other: &Interval) -> Interval {
        Interval {
            lo: tighter(&self.lo, &other.lo, true),
            hi: tighter(&self.hi, &other.hi, false),
        }
    }

    /// True when every number of `self` is in `other`.
    pub fn within(&self, other: &Interval) -> bool {
        self.is_empty() || self.intersect(other) == *self
    }

    /// A point interval's value.
    pub fn as_point(&self) -> Option<&BigRational> {
        match (&self.lo, &self.hi) {
            (Some(l), Some(h)) if l.inclusive && h.inclusive && l.value == h.value => {
                Some(&l.value)
            }
            _ => None,
        }
    }
}

/// The tighter of two lower (`lower`) or upper bounds.
fn tighter(a: &Option<Bound>, b: &Option<Bound>, lower: bool) -> Option<Bound> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) => {
            let pick_x = if x.value == y.value {
                !x.inclusive || y.inclusive
            } else if lower {
                x.value > y.value
            } else {
                x.value < y.value
            };
            Some(if pick_x { x.clone() } else { y.clone() })
        }
    }
}

/// What a condition cell says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// An interval.
    Interval(Interval),
    /// A bare amount, whose meaning the column decides.
    Bare(BigRational),
}

/// An outcome: `percent`% of the base input plus `fixed`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// The percentage (`3.49` for `3.49%`).
    pub percent: BigRational,
    /// The fixed part.
    pub fixed: BigRational,
}

impl Outcome {
    /// A fixed amount.
    pub fn fixed(v: BigRational) -> Outcome {
        Outcome {
            percent: BigRational::zero(),
            fixed: v,
        }
    }
    /// The value at base input `x`.
    pub fn at(&self, x: &BigRational) -> BigRational {
        &self.percent * x / BigRational::from_integer(100.into()) + &self.fixed
    }
}

/// What an outcome cell says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutcomeCell {
    /// A plain outcome.
    Plain(Outcome),
    /// `if NAME is CONDITION then OUTCOME`.
    Rule {
        /// The input the sentence names (lower case, words joined by one space, a
        /// leading `the` dropped).
        input: String,
        /// Its condition.
        condition: Interval,
        /// The outcome when it holds.
        outcome: Outcome,
    },
}

/// What a cell holds, as far as the parser can tell without knowing its column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Nothing (blank).
    Empty,
    /// A bare amount (a condition or an outcome).
    Amount,
    /// An interval that is not a bare amount.
    Interval,
    /// An outcome that is not a bare amount (a percentage, a sum).
    Outcome,
    /// A rule sentence.
    Rule,
    /// None of these: text, such as a key value.
    Text,
}

/// Why a cell could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CellError {
    /// The character offset in the (untrimmed) cell where reading stopped.
    pub offset: usize,
    /// What was expected.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(BigRational),
    Pct,
    /// A currency symbol, a three-letter upper-case currency code or a unit.
    Unit,
    Word(String),
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    Dash,
    Plus,
    Comma,
    Star,
}

struct Lexed {
    toks: Vec<(Tok, usize)>,
    end: usize,
}

/// Three-letter words of the grammar, which are not currency codes when capitalized.
const KEYWORDS3: &[&str] = &["any", "all", "and", "max", "min", "not", "the"];

const UNITS: &[&str] = &["lb", "lbs", "oz", "kg", "g", "pound", "pounds", "ounces"];

fn lex(text: &str) -> Result<Lexed, CellError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() > MAX_CELL_CHARS {
        return Err(CellError {
            offset: MAX_CELL_CHARS,
            message: format!("the cell is longer than {MAX_CELL_CHARS} characters"),
        });
    }
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (n, next) = number(&chars, i)?;
            toks.push((Tok::Num(n), start));
            i = next;
            continue;
        }
        if c.is_alphabetic() {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphabetic() || chars[j] == '.') {
                // A dot ends a word unless a letter follows (`lbs.`, `U.S.`).
                if chars[j] == '.' && !chars.get(j + 1).is_some_and(|d| d.is_alphabetic()) {
                    break;
                }
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let mut next = j;
            // A trailing dot of an abbreviation (`lbs.`).
            if chars.get(j) == Some(&'.') && !chars.get(j + 1).is_some_and(|d| d.is_ascii_digit()) {
                next = j + 1;
            }
            let lower = word.to_lowercase();
            let tok = if (word.chars().count() == 3
                && word.chars().all(|c| c.is_ascii_uppercase())
                && !KEYWORDS3.contains(&lower.as_str()))
                || UNITS.contains(&lower.trim_end_matches('.'))
            {
                Tok::Unit
            } else {
                Tok::Word(lower)
            };
            toks.push((tok, start));
            i = next;
            continue;
        }
        let (tok, len) = match c {
            '%' => (Tok::Pct, 1),
            '$' | '€' | '£' | '¥' => (Tok::Unit, 1),
            '>' if chars.get(i + 1) == Some(&'=') => (Tok::Ge, 2),
            '<' if chars.get(i + 1) == Some(&'=') => (Tok::Le, 2),
            '=' if chars.get(i + 1) == Some(&'<') => (Tok::Le, 2),
            '=' if chars.get(i + 1) == Some(&'>') => (Tok::Ge, 2),
            '>' => (Tok::Gt, 1),
            '<' => (Tok::Lt, 1),
            '≥' => (Tok::Ge, 1),
            '≤' => (Tok::Le, 1),
            '=' => (Tok::Eq, 1),
            '-' | '–' | '—' | '−' | '‐' | '‑' => (Tok::Dash, 1),
            '+' => (Tok::Plus, 1),
            ',' | ';' => (Tok::Comma, 1),
            '*' => (Tok::Star, 1),
            _ => {
                return Err(CellError {
                    offset: start,
                    message: format!("unexpected character `{}`", c.escape_default()),
                })
            }
        };
        toks.push((tok, start));
        i += len;
    }
    Ok(Lexed {
        toks,
        end: chars.len(),
    })
}

/// Reads a number at `chars[i]`: digits with optional thousands groups, an optional
/// fraction.
fn number(chars: &[char], mut i: usize) -> Result<(BigRational, usize), CellError> {
    let start = i;
    let mut digits = String::new();
    let mut run = 0usize;
    while i < chars.len() && chars[i].is_ascii_digit() {
        digits.push(chars[i]);
        run += 1;
        i += 1;
    }
    // Thousands groups: `,ddd` not followed by another digit, after a first run of 1-3.
    let mut grouped = false;
    while run >= 1
        && (run <= 3 || grouped)
        && chars.get(i) == Some(&',')
        && chars.len() >= i + 4
        && chars[i + 1..i + 4].iter().all(|c| c.is_ascii_digit())
        && !chars.get(i + 4).is_some_and(|c| c.is_ascii_digit())
    {
        digits.extend(&chars[i + 1..i + 4]);
        i += 4;
        grouped = true;
        run = 3;
    }
    let mut scale = 0usize;
    if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
        i += 1;
        while i < chars.len() && chars[i].is_ascii_digit() {
            digits.push(chars[i]);
            scale += 1;
            i += 1;
        }
    }
    if digits.len() > MAX_DIGITS {
        return Err(CellError {
            offset: start,
            message: format!("a number with more than {MAX_DIGITS} digits"),
        });
    }
    if digits.is_empty() {
        digits.push('0');
    }
    let n: BigInt = digits.parse().map_err(|_| CellError {
        offset: start,
        message: "not a number".into(),
    })?;
    let d = num_traits::pow(BigInt::from(10), scale);
    Ok((BigRational::new(n, d), i))
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
}

type R<T> = Result<T, CellError>;

impl Parser {
    fn new(text: &str) -> R<Parser> {
        let l = lex(text)?;
        Ok(Parser {
            toks: l.toks,
            pos: 0,
            end: l.end,
        })
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }
    fn offset(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }
    fn err<T>(&self, message: impl Into<String>) -> R<T> {
        Err(CellError {
            offset: self.offset(),
            message: message.into(),
        })
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }
    fn word_at(&self, k: usize, w: &str) -> bool {
        matches!(self.peek_at(k), Some(Tok::Word(x)) if x == w)
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn expect_end(&self, what: &str) -> R<()> {
        if self.at_end() {
            Ok(())
        } else {
            self.err(format!("unexpected text after {what}"))
        }
    }

    fn starts_amount(&self) -> bool {
        match self.peek() {
            Some(Tok::Num(_)) => true,
            Some(Tok::Unit) => matches!(self.peek_at(1), Some(Tok::Num(_) | Tok::Dash)),
            Some(Tok::Dash) => matches!(self.peek_at(1), Some(Tok::Num(_))),
            _ => false,
        }
    }

    /// `[unit] [-] number [unit]`.
    fn amount(&mut self) -> R<BigRational> {
        self.eat(&Tok::Unit);
        let neg = self.eat(&Tok::Dash);
        let Some(Tok::Num(n)) = self.peek().cloned() else {
            return self.err("expected a number");
        };
        self.pos += 1;
        self.eat(&Tok::Unit);
        Ok(if neg { -n } else { n })
    }

    /// A condition: a conjunction of simple conditions, or a bare amount.
    fn condition(&mut self) -> R<Condition> {
        if self.at_end() || self.eat(&Tok::Star) {
            return Ok(Condition::Interval(Interval::all()));
        }
        let first = self.simple()?;
        let mut acc = match first {
            Condition::Bare(v) if !self.is_word("and") => return Ok(Condition::Bare(v)),
            Condition::Bare(v) => Interval::point(v),
            Condition::Interval(i) => i,
        };
        while self.is_word("and") {
            self.pos += 1;
            match self.simple()? {
                Condition::Interval(i) => acc = acc.intersect(&i),
                Condition::Bare(v) => acc = acc.intersect(&Interval::point(v)),
            }
        }
        Ok(Condition::Interval(acc))
    }

    fn simple(&mut self) -> R<Condition> {
        let iv =
            |lo: Option<Bound>, hi: Option<Bound>| Ok(Condition::Interval(Interval { lo, hi }));
        for w in ["any", "all", "anything", "always"] {
            if self.eat_word(w) {
                return iv(None, None);
            }
        }
        if self.eat_word("between") || self.eat_word("from") {
            let a = self.amount()?;
            if self.eat_word("and") || self.eat(&Tok::Dash) || self.eat_word("to") {
                let b = self.amount()?;
                return iv(Some(Bound::closed(a)), Some(Bound::closed(b)));
            }
            return iv(Some(Bound::closed(a)), None);
        }
        let op = match self.peek() {
            Some(Tok::Gt) => Some((false, false)),
            Some(Tok::Ge) => Some((false, true)),
            Some(Tok::Lt) => Some((true, false)),
            Some(Tok::Le) => Some((true, true)),
            _ => None,
        };
        if let Some((upper, inclusive)) = op {
            self.pos += 1;
            let a = self.amount()?;
            let b = Some(Bound {
                value: a,
                inclusive,
            });
            return if upper { iv(None, b) } else { iv(b, None) };
        }
        if self.eat(&Tok::Eq) || self.eat_word("exactly") {
            let a = self.amount()?;
            return Ok(Condition::Interval(Interval::point(a)));
        }
        // Word phrases before the amount: (words, is an upper bound, inclusive).
        const PHRASES: &[(&[&str], bool, bool)] = &[
            (&["more", "than"], false, false),
            (&["greater", "than"], false, false),
            (&["higher", "than"], false, false),
            (&["over"], false, false),
            (&["above"], false, false),
            (&["exceeding"], false, false),
            (&["exceeds"], false, false),
            (&["at", "least"], false, true),
            (&["min"], false, true),
            (&["minimum"], false, true),
            (&["less", "than"], true, false),
            (&["fewer", "than"], true, false),
            (&["lower", "than"], true, false),
            (&["under"], true, false),
            (&["below"], true, false),
            (&["up", "to"], true, true),
            (&["not", "over"], true, true),
            (&["not", "more", "than"], true, true),
            (&["no", "more", "than"], true, true),
            (&["not", "exceeding"], true, true),
            (&["at", "most"], true, true),
            (&["max"], true, true),
            (&["maximum"], true, true),
        ];
        for (words, upper, inclusive) in PHRASES {
            if words.iter().enumerate().all(|(k, w)| self.word_at(k, w)) {
                self.pos += words.len();
                self.eat_word("and"); // `up to and including`
                self.eat_word("including");
                let a = self.amount()?;
                let b = Some(Bound {
                    value: a,
                    inclusive: *inclusive,
                });
                return if *upper { iv(None, b) } else { iv(b, None) };
            }
        }
        if !self.starts_amount() {
            return self
                .err("expected an amount or an interval (`50 - 500`, `> 5000`, `up to 100`)");
        }
        let a = self.amount()?;
        if self.eat(&Tok::Dash)
            || self.eat_word("to")
            || self.eat_word("through")
            || self.eat_word("thru")
        {
            let b = self.amount()?;
            return iv(Some(Bound::closed(a)), Some(Bound::closed(b)));
        }
        if self.is_word("or") {
            const MORE: &[&str] = &["more", "over", "above", "greater", "higher"];
            const LESS: &[&str] = &["less", "under", "below", "fewer", "lower"];
            if MORE.iter().any(|w| self.word_at(1, w)) {
                self.pos += 2;
                return iv(Some(Bound::closed(a)), None);
            }
            if LESS.iter().any(|w| self.word_at(1, w)) {
                self.pos += 2;
                return iv(None, Some(Bound::closed(a)));
            }
            return self.err("expected `or more` or `or less`");
        }
        if self.is_word("and")
            && ["over", "above", "up", "more"]
                .iter()
                .any(|w| self.word_at(1, w))
        {
            self.pos += 2;
            return iv(Some(Bound::closed(a)), None);
        }
        if self.eat(&Tok::Plus) {
            return iv(Some(Bound::closed(a)), None);
        }
        Ok(Condition::Bare(a))
    }

    /// `term (+ term)*`, a term a percentage or an amount; or `free`.
    fn outcome(&mut self) -> R<Outcome> {
        if self.eat_word("free") || self.eat_word("none") || self.eat_word("nil") {
            return Ok(Outcome::default());
        }
        let mut o = Outcome::default();
        loop {
            if !self.starts_amount() {
                return self.err("expected an amount or a percentage (`2%`, `3.49% + 0.39 EUR`)");
            }
            let v = self.amount()?;
            if self.eat(&Tok::Pct) {
                self.eat(&Tok::Unit);
                if self.eat_word("of") {
                    // `2% of the amount`: the base is the row's input.
                    self.eat_word("the");
                    while matches!(self.peek(), Some(Tok::Word(_))) {
                        self.pos += 1;
                    }
                }
                o.percent += v;
            } else {
                o.fixed += v;
            }
            if !self.eat(&Tok::Plus) {
                break;
            }
        }
        Ok(o)
    }

    /// `if NAME [is] CONDITION [,] then OUTCOME`.
    fn rule(&mut self) -> R<OutcomeCell> {
        if !self.eat_word("if") {
            return self.err("expected `if`");
        }
        let mut name = Vec::new();
        while let Some(Tok::Word(w)) = self.peek().cloned() {
            if [
                "is",
                "between",
                "from",
                "over",
                "above",
                "under",
                "below",
                "up",
                "at",
                "more",
                "less",
                "greater",
                "not",
                "exceeds",
                "exceeding",
            ]
            .contains(&w.as_str())
                && !name.is_empty()
            {
                break;
            }
            name.push(w);
            self.pos += 1;
        }
        if name.first().is_some_and(|w| w == "the") {
            name.remove(0);
        }
        if name.is_empty() {
            return self.err("expected the name of an input after `if`");
        }
        self.eat_word("is");
        let start = self.offset();
        let condition = self.condition()?;
        if let Condition::Interval(i) = &condition {
            if i.is_empty() {
                return Err(CellError {
                    offset: start,
                    message: format!(
                        "the interval `{}` holds no number (its lower end is above its upper end)",
                        interval_text(i, 0)
                    ),
                });
            }
        }
        let condition = match condition {
            Condition::Interval(i) => i,
            Condition::Bare(v) => Interval::point(v),
        };
        self.eat(&Tok::Comma);
        if !self.eat_word("then") {
            return self.err("expected `then`");
        }
        let outcome = self.outcome()?;
        self.expect_end("the rule")?;
        Ok(OutcomeCell::Rule {
            input: name.join(" "),
            condition,
            outcome,
        })
    }
}

/// Reads a condition cell.
pub fn parse_condition(text: &str) -> Result<Condition, CellError> {
    let mut p = Parser::new(text)?;
    let c = p.condition()?;
    p.expect_end("the condition")?;
    empty_check(&c, text)?;
    Ok(c)
}

/// An interval that holds no number (`500 - 50`, `50 -- 500`, `> 5 and < 3`) is an
/// error, not a row that never applies.
fn empty_check(c: &Condition, text: &str) -> Result<(), CellError> {
    if let Condition::Interval(i) = c {
        if i.is_empty() {
            return Err(CellError {
                offset: text.len() - text.trim_start().len(),
                message: format!(
                    "the interval `{}` holds no number (its lower end is above its upper end)",
                    interval_text(i, 0)
                ),
            });
        }
    }
    Ok(())
}

/// Reads an outcome cell (an outcome or a rule sentence).
pub fn parse_outcome(text: &str) -> Result<OutcomeCell, CellError> {
    let mut p = Parser::new(text)?;
    if p.is_word("if") {
        return p.rule();
    }
    let o = p.outcome()?;
    p.expect_end("the outcome")?;
    Ok(OutcomeCell::Plain(o))
}

/// What a cell looks like, for finding a table's columns.
pub fn shape(text: &str) -> Shape {
    if text.trim().is_empty() {
        return Shape::Empty;
    }
    match parse_condition(text) {
        Ok(Condition::Bare(_)) => return Shape::Amount,
        Ok(Condition::Interval(_))
            if !matches!(
                text.trim().to_lowercase().as_str(),
                "any" | "all" | "anything" | "always" | "*"
            ) =>
        {
            return Shape::Interval
        }
        _ => {}
    }
    match parse_outcome(text) {
        Ok(OutcomeCell::Rule { .. }) => Shape::Rule,
        Ok(OutcomeCell::Plain(_)) => Shape::Outcome,
        Err(_) => Shape::Text,
    }
}

// ---------------------------------------------------------------- printing

/// A rational as a decimal (`52886`, `3.49`, `-0.5`), or `n/d` when it has no finite
/// decimal expansion; at least `min_decimals` digits after the point when it has a
/// fraction or `min_decimals > 0`.
pub fn decimal(r: &BigRational, min_decimals: usize) -> String {
    let Some(s) = logic::print::decimal(r) else {
        return format!("{}/{}", r.numer(), r.denom());
    };
    let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
    let mut frac = frac.trim_end_matches('0').to_string();
    while frac.len() < min_decimals {
        frac.push('0');
    }
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

/// Digits after the decimal point of a rational's shortest decimal form (`None` when it
/// has none).
pub fn decimals(r: &BigRational) -> Option<usize> {
    let s = logic::print::decimal(r)?;
    Some(
        s.split_once('.')
            .map_or(0, |(_, f)| f.trim_end_matches('0').len()),
    )
}

/// The interval in the parser's own words (`50 - 500`, `> 5000.01`, `> 500 and <= 5000`,
/// `any`); [`parse_condition`] reads it back to the same interval.
pub fn interval_text(i: &Interval, min_decimals: usize) -> String {
    let d = |r: &BigRational| decimal(r, min_decimals);
    match (&i.lo, &i.hi) {
        (None, None) => "any".into(),
        (Some(l), None) => format!("{} {}", if l.inclusive { ">=" } else { ">" }, d(&l.value)),
        (None, Some(h)) => format!("{} {}", if h.inclusive { "<=" } else { "<" }, d(&h.value)),
        (Some(l), Some(h)) if l.inclusive && h.inclusive => {
            if l.value == h.value {
                format!("= {}", d(&l.value))
            } else {
                format!("{} - {}", d(&l.value), d(&h.value))
            }
        }
        (Some(l), Some(h)) => format!(
            "{} {} and {} {}",
            if l.inclusive { ">=" } else { ">" },
            d(&l.value),
            if h.inclusive { "<=" } else { "<" },
            d(&h.value)
        ),
    }
}

/// The interval as a comparison chain over a name (`49.99 < amount < 50`, `amount >
/// 5000.01`, `amount = 3`, `any amount`).
pub fn interval_over(i: &Interval, name: &str, min_decimals: usize) -> String {
    let d = |r: &BigRational| decimal(r, min_decimals);
    if let Some(p) = i.as_point() {
        return format!("{name} = {}", d(p));
    }
    match (&i.lo, &i.hi) {
        (None, None) => format!("any {name}"),
        (Some(l), None) => format!(
            "{name} {} {}",
            if l.inclusive { ">=" } else { ">" },
            d(&l.value)
        ),
        (None, Some(h)) => format!(
            "{name} {} {}",
            if h.inclusive { "<=" } else { "<" },
            d(&h.value)
        ),
        (Some(l), Some(h)) => format!(
            "{} {} {name} {} {}",
            d(&l.value),
            if l.inclusive { "<=" } else { "<" },
            if h.inclusive { "<=" } else { "<" },
            d(&h.value)
        ),
    }
}

/// The outcome in the parser's own words (`2%`, `3.49% + 0.39`, `4.25`).
pub fn outcome_text(o: &Outcome, min_decimals: usize) -> String {
    match (o.percent.is_zero(), o.fixed.is_zero()) {
        (true, _) => decimal(&o.fixed, min_decimals),
        (false, true) => format!("{}%", decimal(&o.percent, 0)),
        (false, false) => format!(
            "{}% + {}",
            decimal(&o.percent, 0),
            decimal(&o.fixed, min_decimals)
        ),
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&interval_text(self, 0))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&outcome_text(self, 0))
    }
}

// ---------------------------------------------------------------- witnesses

/// The simplest number in an interval for a person to read: zero if it is in it, else
/// a number with the fewest decimals (integers, then tenths, cents, mills, ...): of up
/// to ten such numbers the one nearest the middle, of more the first above the lower
/// end (next to the row that ends there). The midpoint when no decimal with up to 18
/// digits fits. `None` when the interval
/// is empty.
pub fn simplest(i: &Interval) -> Option<BigRational> {
    if i.is_empty() {
        return None;
    }
    if i.contains(&BigRational::zero()) {
        return Some(BigRational::zero());
    }
    for digits in 0..=18usize {
        let step = BigRational::new(BigInt::one(), num_traits::pow(BigInt::from(10), digits));
        // The smallest and the largest multiples of `step` in the interval.
        let low = i.lo.as_ref().map(|l| {
            let mut c = (&l.value / &step).ceil() * &step;
            if !l.inclusive && c == l.value {
                c += &step;
            }
            c
        });
        let high = i.hi.as_ref().map(|h| {
            let mut c = (&h.value / &step).floor() * &step;
            if !h.inclusive && c == h.value {
                c -= &step;
            }
            c
        });
        let candidate = match (low, high) {
            (Some(a), Some(b)) if a <= b => {
                // A few candidates: the one nearest the middle; many: the first
                // above the lower end (next to the row that ends there).
                let count = (&b - &a) / &step;
                if count > BigRational::from_integer(9.into()) {
                    a
                } else {
                    let mid = (&i.lo.as_ref()?.value + &i.hi.as_ref()?.value)
                        / BigRational::from_integer(2.into());
                    let half = BigRational::new(BigInt::one(), BigInt::from(2));
                    let c = (&mid / &step + half).floor() * &step;
                    c.clamp(a, b)
                }
            }
            (Some(_), Some(_)) => continue,
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => BigRational::zero(),
        };
        if i.contains(&candidate) {
            return Some(candidate);
        }
    }
    match (&i.lo, &i.hi) {
        (Some(l), Some(h)) => Some((&l.value + &h.value) / BigRational::from_integer(2.into())),
        _ => None,
    }
}

/// Other simple numbers in an interval, to try when the simplest one does not show a
/// difference: the lower end, the upper end, and the simplest numbers near each end.
pub fn candidates(i: &Interval) -> Vec<BigRational> {
    let mut out = Vec::new();
    out.extend(simplest(i));
    for b in [&i.lo, &i.hi].into_iter().flatten() {
        if b.inclusive {
            out.push(b.value.clone());
        }
    }
    if let Some(h) = &i.hi {
        // The simplest number at or just under the upper end.
        for digits in 0..=6usize {
            let step = BigRational::new(BigInt::one(), num_traits::pow(BigInt::from(10), digits));
            let mut c = (&h.value / &step).floor() * &step;
            if !h.inclusive && c == h.value {
                c -= &step;
            }
            if i.contains(&c) {
                out.push(c);
                break;
            }
        }
    }
    if let (Some(l), Some(h)) = (&i.lo, &i.hi) {
        out.push((&l.value + &h.value) / BigRational::from_integer(2.into()));
    }
    if i.lo.is_none() || i.hi.is_none() {
        if let Some(s) = simplest(i) {
            let one = BigRational::one();
            out.push(if i.hi.is_none() { &s + &one } else { &s - &one });
        }
    }
    out.retain(|c| i.contains(c));
    let mut seen = Vec::new();
    for c in out {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    seen
}

/// True when the rational is negative (for callers that avoid num-traits).
pub fn is_negative(r: &BigRational) -> bool {
    r.is_negative()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> BigRational {
        match parse_condition(s).unwrap() {
            Condition::Bare(v) => v,
            c => panic!("{c:?}"),
        }
    }
    fn iv(s: &str) -> String {
        match parse_condition(s) {
            Ok(Condition::Interval(i)) => interval_text(&i, 0),
            Ok(Condition::Bare(v)) => format!("bare {}", decimal(&v, 0)),
            Err(e) => format!("error at {}: {}", e.offset, e.message),
        }
    }

    #[test]
    fn amounts() {
        assert_eq!(decimal(&q("$52,886"), 0), "52886");
        assert_eq!(decimal(&q("1,234,567.891"), 0), "1234567.891");
        assert_eq!(decimal(&q("3.49"), 2), "3.49");
        assert_eq!(decimal(&q("0.39 EUR"), 2), "0.39");
        assert_eq!(decimal(&q("USD 10"), 0), "10");
        assert_eq!(decimal(&q("-5"), 0), "-5");
        assert_eq!(decimal(&q("2 lbs."), 0), "2");
        assert!(parse_condition("1,5").is_err());
        assert!(parse_condition("1234,567").is_err());
    }

    #[test]
    fn intervals() {
        assert_eq!(iv("50.00 - 500.00"), "50 - 500");
        assert_eq!(iv("50.00 – 500.00 USD"), "50 - 500");
        assert_eq!(iv("> 5000.01"), "> 5000.01");
        assert_eq!(iv(">= 10"), ">= 10");
        assert_eq!(iv("up to $52,886"), "<= 52886");
        assert_eq!(iv("500.01 or more"), ">= 500.01");
        assert_eq!(iv("less than 50"), "< 50");
        assert_eq!(iv("between 1 and 2"), "1 - 2");
        assert_eq!(iv("> 500 and <= 5,000"), "> 500 and <= 5000");
        assert_eq!(iv("5000+"), ">= 5000");
        assert_eq!(iv("not over 70 lbs"), "<= 70");
        assert_eq!(iv("any"), "any");
        assert_eq!(iv("ANY"), "any");
        assert_eq!(iv("MAX 50 USD"), "<= 50");
        assert_eq!(iv("12"), "bare 12");
        assert_eq!(iv("50 -"), "error at 4: expected a number");
        assert_eq!(
            iv("fifty"),
            "error at 0: expected an amount or an interval (`50 - 500`, `> 5000`, `up to 100`)"
        );
    }

    #[test]
    fn outcomes_and_rules() {
        let o = |s: &str| match parse_outcome(s) {
            Ok(OutcomeCell::Plain(o)) => outcome_text(&o, 2),
            Ok(OutcomeCell::Rule {
                input,
                condition,
                outcome,
            }) => format!(
                "if {input} in {} then {}",
                interval_text(&condition, 2),
                outcome_text(&outcome, 2)
            ),
            Err(e) => format!("error at {}: {}", e.offset, e.message),
        };
        assert_eq!(o("3.49% + 0.39 EUR"), "3.49% + 0.39");
        assert_eq!(o("2%"), "2%");
        assert_eq!(o("0.39 EUR"), "0.39");
        assert_eq!(o("$4.25"), "4.25");
        assert_eq!(
            o("if amount is between 50.00 - 500.00 USD, then 2%"),
            "if amount in 50.00 - 500.00 then 2%"
        );
        assert_eq!(
            o("If the Amount is over 500 then 1.5% + 0.30"),
            "if amount in > 500.00 then 1.5% + 0.30"
        );
        assert_eq!(
            o("2% + "),
            "error at 5: expected an amount or a percentage (`2%`, `3.49% + 0.39 EUR`)"
        );
        assert_eq!(o("=SUM(A1:A3)"), "error at 4: unexpected character `(`");
    }

    #[test]
    fn shapes() {
        assert_eq!(shape("Widget"), Shape::Text);
        assert_eq!(shape("US"), Shape::Text);
        assert_eq!(shape("USD"), Shape::Text);
        assert_eq!(shape("4.25"), Shape::Amount);
        assert_eq!(shape("50 - 500"), Shape::Interval);
        assert_eq!(shape("2%"), Shape::Outcome);
        assert_eq!(shape("if amount > 5 then 1"), Shape::Rule);
        assert_eq!(shape(" "), Shape::Empty);
    }

    #[test]
    fn simplest_points() {
        let i = |s: &str| match parse_condition(s).unwrap() {
            Condition::Interval(i) => i,
            _ => unreachable!(),
        };
        let open = |a: &str, b: &str| Interval {
            lo: Some(Bound::open(q(a))),
            hi: Some(Bound::open(q(b))),
        };
        assert_eq!(
            decimal(&simplest(&open("49.99", "50.00")).unwrap(), 0),
            "49.995"
        );
        assert_eq!(
            decimal(&simplest(&open("500", "500.01")).unwrap(), 0),
            "500.005"
        );
        assert_eq!(decimal(&simplest(&i("0.01 - 49.99")).unwrap(), 0), "1");
        assert_eq!(
            decimal(&simplest(&i("> 500 and <= 100000")).unwrap(), 0),
            "501"
        );
        assert_eq!(decimal(&simplest(&i("0.5 - 0.9")).unwrap(), 0), "0.7");
        assert_eq!(decimal(&simplest(&i("> 5000.01")).unwrap(), 0), "5001");
        assert_eq!(decimal(&simplest(&i("< 0.01")).unwrap(), 0), "0");
        assert_eq!(
            decimal(&simplest(&i("> 5000 and <= 5000.01")).unwrap(), 0),
            "5000.01"
        );
        assert_eq!(decimal(&simplest(&i("< -3.5")).unwrap(), 0), "-4");
    }
}

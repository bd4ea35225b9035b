//! Ultimate/Hanfor requirement files (`.req`, the input of Ultimate's requirements checker
//! and what Hanfor exports) turned into vera's timed spec format (docs/timed.md).
//!
//! A `.req` file declares variables (`Input x is bool`, `Output y is int`,
//! `Internal z is real`), constants (`CONST MAX is 5`) and requirements written as
//! Hanfor's pattern sentences: `req1: Globally, it is always the case that if "A" holds,
//! then "B" holds after at most "10" time units`. Keywords are read in any case, commas
//! are optional where Ultimate's grammar (`Requirements.cup`) has them optional, and a
//! requirement may span lines. The first line may hold Ultimate's expected result,
//! `// #TestSpec: rt-inconsistent:req1+req2; vacuous:; inconsistent:; results: 4`, which
//! is returned as [`ExpectedResult`].
//!
//! Every problem of a file is reported at once, each with `file:line:column`: undeclared
//! names, type errors, durations that are not a whole number of ticks, and every pattern
//! vera's timed format has no counterpart for. Nothing is guessed: a sentence that is not
//! one of the patterns below is an error, never a best effort.
//!
//! # Time
//!
//! Ultimate's durations are abstract "time units"; they are read as seconds: `[time]
//! tick = "1 s"` (or the tick given) and `"10" time units` becomes `"10 s"`. A constant
//! used as a duration becomes a named duration (`[time.durations] MAX = "50 s"`).
//! Durations in `sec`/`msec`/`usec` (which Ultimate counts in microseconds) are refused.
//!
//! Ultimate's time is dense, vera's discrete (docs/timed.md). To compare them, a vera
//! trace is read as a dense signal that keeps the state of step `i` from tick `i` to tick
//! `i+1`; Ultimate's traces that change between ticks have no vera counterpart. With that
//! reading, each mapping below says whether it is exact and, if not, by how much it
//! differs (compared through Ultimate's countertraces, `PatternType` subclasses of
//! `Library-srParse`).
//!
//! # Scopes
//!
//! | Ultimate | `[requirements.timed]` |
//! |---|---|
//! | `Globally` | no scope key |
//! | `Before "R"` | `scope_before = R` |
//! | `After "Q"` | `scope_after = Q` |
//! | `After "Q" until "R"` | `scope_after = Q`, `scope_until = R` |
//! | `Between "Q" and "R"` | `scope_after = Q`, `scope_until = R`, with a note |
//!
//! "Between" is read like "after-until": Ultimate's (Dwyer's) "between" only constrains a
//! segment that `R` closes, while after-until also constrains a last segment that `R`
//! never closes. Ultimate also drops a response still pending when its scope ends (its
//! countertraces keep `!R`/`!Q` through the response's phases); how a pending response
//! is treated at the end of a scope is vera's rule (docs/timed.md).
//!
//! # Patterns
//!
//! `R`, `S` are the formulas of the sentence in order, `d`, `d1`, `d2` its durations.
//!
//! - "it is always the case that `S` holds" (`UniversalityPattern`): `then = S`. Exact.
//! - "it is never the case that `S` holds" (`AbsencePattern`): `then = "(not S)"`. Exact.
//! - "it is always the case that initially `S` holds" (`InitializationPattern`, Globally
//!   only): `initially = true`, `then = S`. Exact (`S` at step 0).
//! - "it is always the case that if `R` holds, then `S` holds as well"
//!   (`InvariancePattern`): `if = R`, `then = S`. Exact.
//! - "... if `R` holds, then it holds persistently" (`PersistencePattern`): `if = R`,
//!   `then = R`, `until = "false"`, or `until` = the scope's end (`Before "R'"`: `R'`;
//!   after-until and between: the until formula), since Ultimate asks persistence only up
//!   to the scope's end. Exact.
//! - "... if `R` holds, then `S` holds after at most `d`" (`ResponseDelayPattern`):
//!   `if = R`, `then = S`, `within = d`. Exact: Ultimate forbids `!S` for longer than `d`
//!   after an `R & !S` instant, that is `S` at one of the ticks `t .. t+d`.
//! - "... once `R` becomes satisfied, `S` holds after at most `d`"
//!   (`EdgeResponseDelayPattern`): `when = R`, `then = S`, `within = d`. Exact but at step
//!   0: vera's `when` fires there when `R` holds, Ultimate needs `!R` before a rising edge.
//! - "... if `R` holds, then `S` holds for at least `d`" (`InvarianceBoundL2Pattern`):
//!   `if = R`, `then = S`, `for = d`. Exact: Ultimate forbids `!S` less than `d` after any
//!   instant of the `R` phase, that is `S` at the ticks `t .. t+d`.
//! - "... once `R` becomes satisfied, `S` holds for at least `d`"
//!   (`EdgeResponseBoundL2Pattern`): `when = R`, `then = S`, `for = d`. Exact but at step
//!   0 (as the previous `when`).
//! - "... once `R` becomes satisfied, it holds for at least `d`" (`DurationBoundLPattern`):
//!   `when = R`, `then = R`, `for = d`. One tick stricter: Ultimate forbids an `R` phase
//!   shorter than `d` (`R` at the `d` ticks `t .. t+d-1` is enough), vera asks `R` at the
//!   `d + 1` ticks `t .. t+d`; and stricter at step 0, where Ultimate does not constrain an
//!   `R` phase that starts at time 0.
//! - "... once `R` becomes satisfied, it holds for less than `d`"
//!   (`DurationBoundUPattern`): `if = R`, `held_for = d`, `then = "false"`. One tick
//!   weaker: Ultimate forbids an `R` phase of length `d` (`R` at `d` consecutive ticks),
//!   vera forbids `R` at `d + 1` consecutive ticks.
//! - "... if `R` holds for at least `d`, then `S` holds afterwards" (`ResponseBoundL1Pattern`;
//!   also the deprecated "... after `R` holds for at least `d`, then `S` holds",
//!   `BndEntryConditionPattern`, which Ultimate gives the same countertrace): `if = R`,
//!   `held_for = d`, `then = S`. One tick weaker: for an `R` phase over the ticks `s .. e`,
//!   Ultimate asks `S` at the ticks `s+d .. e+1` (also at the first tick after the phase,
//!   and already for a phase of `d` ticks), vera at the ticks `s+d .. e` where `R` still
//!   holds.
//! - "... if `R` holds for at least `d1`, then `S` holds afterwards for at least `d2`"
//!   (`ResponseBoundL12Pattern`): `if = R`, `held_for = d1`, `then = S`, `for = d2`. The
//!   trigger is one tick weaker as in the previous mapping.
//! - "... if `R` holds for at least `d1`, then `S` holds after at most `d2`"
//!   (`ResponseDelayBoundL1Pattern`): `if = R`, `held_for = d1`, `then = S`,
//!   `within = d2`. The trigger is one tick weaker as in `ResponseBoundL1Pattern`.
//!
//! Refused with "pattern not supported" (vera's timed format has no counterpart):
//! "eventually" responses and chains, precedence and its chains, constrained chains,
//! bounded existence ("transitions to states ... occur at most twice"), bounded recurrence
//! ("holds at least every"), delayed universality ("`S` holds after at most `d`"),
//! responses with both a delay and a minimum duration, the edge response after a bounded
//! phase, and the trigger-response patterns ("after `R` holds for at least `d` and `S`
//! holds, then ..."). Countertrace formulas (`⌈A⌉;⌈B⌉`) are refused too.
//!
//! # Formulas
//!
//! The text between the quotes is Ultimate's (Boogie-like) expression language: `!`,
//! `&&`, `||`, `==>`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `+`, `-`, `*`, `/`, `%`,
//! parentheses, `true`, `false`, numbers, names and `abs(...)`, plus Ultimate's Unicode
//! spellings (`¬ ∧ ∨ ⇒ ≤ ≥ ≠`). It is printed as SMT-LIB. As in Ultimate's grammar, `&&`
//! and `||` do not mix without parentheses and comparisons do not chain. Constants are
//! replaced by their values; an integer literal next to a Real is read as a Real (`2` as
//! `2.0`); `/` and `%` on Ints are `div` and `mod`. Other functions (`prev`, ...) are
//! refused.

use crate::one_line;
use crate::timed_spec::{Doc, Lines, ReqOut, SpecOut, TimeOut, VarOut};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

/// At most this many errors are listed for one file.
const MAX_ERRORS: usize = 100;
/// How deeply expressions may nest (parentheses, unary operators, implications).
const MAX_DEPTH: usize = 100;
/// The longest duration vera accepts, in ticks (docs/timed.md).
const MAX_TICKS: u128 = 100_000;
/// Numbers with more digits than this are refused (exact arithmetic stays in `u128`).
const MAX_DIGITS: usize = 18;

/// What [`req_to_spec`] made of a `.req` file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReqImport {
    /// The spec in vera's timed TOML format (docs/timed.md).
    pub toml: String,
    /// How many requirements it has.
    pub requirements: usize,
    /// How many variables it declares.
    pub variables: usize,
    /// What a person should know about the reading (scopes read differently, ids given
    /// or renamed, constants replaced).
    pub notes: Vec<String>,
    /// Ultimate's expected result from the `#TestSpec` first line, if there is one.
    pub expected: Option<ExpectedResult>,
}

/// Ultimate's expected result of a regression file: `// #TestSpec: rt-inconsistent:
/// req1+req2, req3+req4; vacuous: req5, req6; inconsistent: req7, req8; results: 4`.
/// Read as Ultimate's test suite reads it (`ReqCheckerRegressionTestSuite`): sets of
/// rt-inconsistent requirements are separated by `,` and their members by `+`; the
/// vacuous and the inconsistent requirements are plain lists (Ultimate keeps the
/// inconsistent ones as one set, not as sets of sets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct ExpectedResult {
    /// The sets of requirements that are rt-inconsistent together.
    pub rt_inconsistent: Vec<Vec<String>>,
    /// The vacuous requirements.
    pub vacuous: Vec<String>,
    /// The inconsistent requirements.
    pub inconsistent: Vec<String>,
    /// How many results Ultimate reports; `None` for `-1` (not checked) or when missing.
    pub results: Option<usize>,
}

/// A problem at a position of a `.req` file (1-based line and column, in characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}", located(.file, *.line, *.column, .message))]
pub struct ReqError {
    /// The file name as given.
    pub file: String,
    /// Line (0 when the problem is not in the file: a bad `tick`).
    pub line: u32,
    /// Column.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

fn located(file: &str, line: u32, column: u32, message: &str) -> String {
    if line == 0 {
        format!("{file}: {message}")
    } else {
        format!("{file}:{line}:{column}: {message}")
    }
}

/// How the imported spec reads time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReqSemantics {
    /// Dense time, as the peer reads the file: every pattern of Hanfor's catalog, as
    /// `pattern = "..."` with its formulas and durations (the default).
    #[default]
    Dense,
    /// vera's discrete steps: the patterns that have a counterpart among the
    /// `[requirements.timed]` keys, with the differences listed in this module's docs.
    Discrete,
}

/// Options of [`req_to_spec_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ReqOptions<'a> {
    /// The spec's tick (`"100 ms"`); by default the greatest common divisor of the
    /// file's durations in dense time, one second in discrete time.
    pub tick: Option<&'a str>,
    /// How time is read.
    pub semantics: ReqSemantics,
}

/// Turns the `.req` file `file` (its content `text`) into a timed spec read in dense
/// time (see [`req_to_spec_with`]); `tick` is the spec's time step.
pub fn req_to_spec(file: &str, text: &str, tick: Option<&str>) -> Result<ReqImport, Vec<ReqError>> {
    req_to_spec_with(
        file,
        text,
        &ReqOptions {
            tick,
            semantics: ReqSemantics::Dense,
        },
    )
}

/// Turns the `.req` file `file` (its content `text`) into a timed spec. In dense time
/// every pattern is imported as the peer reads it; durations keep their units (time
/// units are read as seconds, or as microseconds in a file that also gives durations
/// in `sec`, `msec` or `usec`, as Ultimate counts them), and the tick is their
/// greatest common divisor unless given. In discrete time the tick is `1 s` unless
/// given, one time unit is one second, every duration must be a whole number of ticks,
/// and the patterns without a counterpart among vera's discrete keys are refused.
/// Returns every problem of the file at once.
pub fn req_to_spec_with(
    file: &str,
    text: &str,
    options: &ReqOptions,
) -> Result<ReqImport, Vec<ReqError>> {
    let mut errors = Vec::new();
    let dense = options.semantics == ReqSemantics::Dense;
    let tick = match options.tick {
        None if dense => None,
        given => match parse_tick(given.unwrap_or("1 s")) {
            Ok(t) => Some(t),
            Err(m) => {
                errors.push(whole_file(file, m));
                None
            }
        },
    };
    let (toks, lex_errors) = lex(text);
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        errors: lex_errors,
        decls: Vec::new(),
        reqs: Vec::new(),
    };
    p.run();
    let Parser {
        errors: mut raw,
        toks,
        decls,
        reqs,
        ..
    } = p;
    let mut b = Builder {
        text,
        lines: Lines::new(text),
        tick,
        raw: Vec::new(),
        syms: HashMap::new(),
        durations: BTreeMap::new(),
        consts_in_formulas: Vec::new(),
        dense,
        micro: false,
        history: Vec::new(),
    };
    let mut variables = b.declare(&decls);
    if dense {
        b.dense_time(&reqs, options.tick.is_some() && errors.is_empty());
    }
    let built = b.requirements(&toks, &reqs);
    raw.append(&mut b.raw);
    errors.extend(placed_errors(file, raw, &b.lines));
    if !errors.is_empty() {
        return Err(errors);
    }
    let (requirements, mut notes) = built;
    b.history_and_constants(&mut variables, &mut notes);
    if requirements.is_empty() {
        notes.push("the file has no requirements".into());
    }
    let (expected, spec_note) = test_spec(text);
    notes.extend(spec_note);
    let stem = Path::new(file)
        .file_stem()
        .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned());
    let tick = b.tick.expect("no tick error");
    let micro = b.micro;
    let doc = Doc {
        spec: SpecOut { name: stem },
        time: TimeOut {
            tick: tick.text.clone(),
            semantics: dense.then_some("dense"),
            durations: b.durations,
        },
        variables,
        requirements,
    };
    let body = toml::to_string(&doc)
        .map_err(|e| vec![whole_file(file, format!("cannot write the TOML: {e}"))])?;
    let toml = format!("{}{body}", header(file, dense, micro));
    Ok(ReqImport {
        toml,
        requirements: doc.requirements.len(),
        variables: doc.variables.len(),
        notes,
        expected,
    })
}

/// An error about the whole file.
fn whole_file(file: &str, message: String) -> ReqError {
    ReqError {
        file: file.into(),
        line: 0,
        column: 0,
        message,
    }
}

/// The errors found at byte offsets, in order of position, one per position, at most
/// [`MAX_ERRORS`] of them (and a last one saying so when there are more).
fn placed_errors(file: &str, mut raw: Vec<(usize, String)>, lines: &Lines) -> Vec<ReqError> {
    raw.sort_by_key(|&(at, _)| at);
    raw.dedup_by_key(|e| e.0);
    let too_many = raw.len() > MAX_ERRORS;
    let mut errors: Vec<ReqError> = raw
        .into_iter()
        .take(MAX_ERRORS)
        .map(|(at, message)| {
            let (line, column) = lines.at(at);
            ReqError {
                file: file.into(),
                line,
                column,
                message,
            }
        })
        .collect();
    if too_many {
        errors.push(whole_file(
            file,
            format!("more than {MAX_ERRORS} errors; the rest are not listed"),
        ));
    }
    errors
}

/// The comment lines above the spec: the file imported and how its time units are read.
fn header(file: &str, dense: bool, micro: bool) -> String {
    let shown: String = file
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let unit_note = match (dense, micro) {
        (true, true) => {
            "# Read in dense time as Ultimate reads it; its time units are microseconds \
                         here (the file also gives durations in sec, msec or usec)."
        }
        (true, false) => {
            "# Read in dense time as Ultimate reads it; its abstract time units are \
                          read as seconds: 1 time unit = 1 s."
        }
        (false, _) => "# Ultimate's abstract time units are read as seconds: 1 time unit = 1 s.",
    };
    format!(
        "# Imported from the Ultimate requirements file {shown} (vera extract, .req import).\n\
         {unit_note}\n\n"
    )
}

// ---------------------------------------------------------------------------------------
// #TestSpec

/// The expected result of the first line, and a note when it is there but malformed.
fn test_spec(text: &str) -> (Option<ExpectedResult>, Option<String>) {
    const KEY: &str = "#TestSpec:";
    let first = text.lines().next().unwrap_or("");
    let Some(i) = first.find(KEY) else {
        return (None, None);
    };
    match parse_test_spec(&first[i + KEY.len()..]) {
        Some(r) => (Some(r), None),
        None => (
            None,
            Some("the #TestSpec line (line 1) is malformed; it is ignored".into()),
        ),
    }
}

/// Java's `String.split`: trailing empty pieces dropped.
fn java_split(s: &str, sep: char) -> Vec<&str> {
    let mut v: Vec<&str> = s.split(sep).collect();
    while v.len() > 1 && v.last() == Some(&"") {
        v.pop();
    }
    if v == [""] && s.is_empty() {
        return vec![""];
    }
    v
}

fn no_space(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// Reads the part after `#TestSpec:` as Ultimate's regression test suite does; `None`
/// when Ultimate would call it broken.
fn parse_test_spec(s: &str) -> Option<ExpectedResult> {
    let mut r = ExpectedResult::default();
    let mut results: Option<i64> = None;
    for entry in java_split(s, ';') {
        let kv = java_split(entry, ':');
        if kv.len() > 2 {
            return None;
        }
        let key = no_space(kv[0]);
        let value = kv.get(1).map(|v| no_space(v)).unwrap_or_default();
        match key.as_str() {
            "rt-inconsistent" => {
                for subset in value.split(',') {
                    let mut set = Vec::new();
                    for m in subset.split('+').filter(|m| !m.is_empty()) {
                        push_unique(&mut set, m.to_string());
                    }
                    if !set.is_empty() && !r.rt_inconsistent.contains(&set) {
                        r.rt_inconsistent.push(set);
                    }
                }
            }
            "vacuous" | "inconsistent" => {
                let list = if key == "vacuous" {
                    &mut r.vacuous
                } else {
                    &mut r.inconsistent
                };
                for m in value.split(',').filter(|m| !m.is_empty()) {
                    push_unique(list, m.to_string());
                }
            }
            "results" => {
                if results.is_some() {
                    return None;
                }
                let n: i64 = value.parse().ok()?;
                if n < -1 {
                    return None;
                }
                results = Some(n);
            }
            _ => return None,
        }
    }
    r.results = results.and_then(|n| usize::try_from(n).ok());
    Some(r)
}

// ---------------------------------------------------------------------------------------
// Lexer (Ultimate's Requirements.flex, outside the quotes)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tk {
    Word,
    Num,
    Str,
    Colon,
    Comma,
    Dot,
    Minus,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: Tk,
    start: usize,
    end: usize,
    /// The first token on its line.
    first: bool,
}

/// Ultimate's `BoogieLetter`.
fn is_letter(c: char) -> bool {
    c.is_alphabetic() || "'~#$^_?\\".contains(c)
}

fn is_word_char(c: char) -> bool {
    is_letter(c) || c.is_alphanumeric()
}

type RawError = (usize, String);

fn lex(text: &str) -> (Vec<Tok>, Vec<RawError>) {
    let mut toks = Vec::new();
    let mut errs = Vec::new();
    let mut i = 0;
    let mut first = true;
    let next_char = |i: usize| text[i..].chars().next();
    while let Some(c) = next_char(i) {
        let rest = &text[i..];
        if c == '\n' {
            first = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() || c == '\u{feff}' {
            i += c.len_utf8();
            continue;
        }
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if let Some(body) = rest.strip_prefix("/*") {
            match body.find("*/") {
                Some(j) => {
                    if body[..j].contains('\n') {
                        first = true;
                    }
                    i += j + 4;
                }
                None => {
                    errs.push((i, "a comment /* that is not closed".into()));
                    i = text.len();
                }
            }
            continue;
        }
        let start = i;
        let kind = if c == '"' {
            let line = &rest[1..rest.find('\n').unwrap_or(rest.len())];
            match line.find('"') {
                Some(j) => {
                    i += j + 2;
                    Tk::Str
                }
                None => {
                    errs.push((i, "a quote that is not closed on its line".into()));
                    i += 1 + line.len();
                    Tk::Other
                }
            }
        } else if c.is_ascii_digit() {
            i += rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let r = &text[i..];
            if r.starts_with('.') && r[1..].starts_with(|c: char| c.is_ascii_digit()) {
                i += 1;
                i += text[i..]
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(text.len() - i);
            }
            Tk::Num
        } else if is_letter(c) {
            i += c.len_utf8();
            while let Some(d) = next_char(i) {
                if is_word_char(d) {
                    i += d.len_utf8();
                } else if d == '-' && text[i + 1..].starts_with(|e: char| e.is_alphanumeric()) {
                    i += 1;
                } else {
                    break;
                }
            }
            Tk::Word
        } else {
            i += c.len_utf8();
            match c {
                ':' => Tk::Colon,
                ',' => Tk::Comma,
                '.' => Tk::Dot,
                '-' => Tk::Minus,
                _ => Tk::Other,
            }
        };
        toks.push(Tok {
            kind,
            start,
            end: i,
            first,
        });
        first = false;
    }
    (toks, errs)
}

// ---------------------------------------------------------------------------------------
// Patterns (Ultimate's Requirements.cup)

/// Ultimate's pattern classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Absence,
    Universality,
    Initialization,
    Persistence,
    Invariance,
    Response,
    ExistenceBoundU,
    Precedence,
    PrecedenceChain12,
    PrecedenceChain21,
    ResponseChain12,
    ConstrainedChain,
    DurationBoundL,
    DurationBoundU,
    EdgeResponseBoundL2,
    EdgeResponseBoundU1,
    EdgeResponseDelay,
    EdgeResponseDelayBoundL2,
    ReccurrenceBoundL,
    UniversalityDelay,
    ResponseDelay,
    ResponseBoundL12,
    ResponseDelayBoundL1,
    ResponseBoundL1,
    ResponseDelayBoundL2,
    InvarianceBoundL2,
    BndEntryCondition,
    TriggerResponseBoundL1,
    TriggerResponseDelayBoundL1,
}

/// The sentences of Ultimate's grammar: `$E` a quoted formula, `$D` a duration, `$,` an
/// optional comma, anything else a keyword (any case).
const TEMPLATES: &[(Kind, &str)] = &[
    (Kind::Absence, "it is never the case that $E holds"),
    (Kind::Universality, "it is always the case that $E holds"),
    (
        Kind::Initialization,
        "it is always the case that initially $E holds",
    ),
    (
        Kind::Persistence,
        "it is always the case that if $E holds $, then it holds persistently",
    ),
    (
        Kind::Invariance,
        "it is always the case that if $E holds $, then $E holds as well",
    ),
    (Kind::Response, "$E eventually holds"),
    (
        Kind::ExistenceBoundU,
        "transitions to states in which $E holds occur at most twice",
    ),
    (
        Kind::Precedence,
        "it is always the case that if $E holds $, then $E previously held",
    ),
    (
        Kind::PrecedenceChain12,
        "it is always the case that if $E holds and is succeeded by $E $, then $E previously held",
    ),
    (
        Kind::PrecedenceChain21,
        "it is always the case that if $E holds $, then $E previously held and was preceded by $E",
    ),
    (
        Kind::Response,
        "it is always the case that if $E holds $, then $E eventually holds",
    ),
    (
        Kind::ResponseChain12,
        "it is always the case that if $E holds $, then $E eventually holds and is succeeded by $E",
    ),
    (
        Kind::ConstrainedChain,
        "it is always the case that if $E holds $, then $E eventually holds and is succeeded by $E \
         where $E does not hold between $E and $E",
    ),
    (
        Kind::DurationBoundL,
        "it is always the case that once $E becomes satisfied $, it holds for at least $D",
    ),
    (
        Kind::DurationBoundU,
        "it is always the case that once $E becomes satisfied $, it holds for less than $D",
    ),
    (
        Kind::EdgeResponseBoundL2,
        "it is always the case that once $E becomes satisfied $, $E holds for at least $D",
    ),
    (
        Kind::EdgeResponseBoundU1,
        "it is always the case that once $E becomes satisfied and holds for at most $D $, then $E \
         holds afterwards",
    ),
    (
        Kind::EdgeResponseDelay,
        "it is always the case that once $E becomes satisfied $, $E holds after at most $D",
    ),
    (
        Kind::EdgeResponseDelayBoundL2,
        "it is always the case that once $E becomes satisfied $, $E holds after at most $D for at \
         least $D",
    ),
    (
        Kind::ReccurrenceBoundL,
        "it is always the case that $E holds at least every $D",
    ),
    (
        Kind::UniversalityDelay,
        "it is always the case that $E holds after at most $D",
    ),
    (
        Kind::ResponseDelay,
        "it is always the case that if $E holds $, then $E holds after at most $D",
    ),
    (
        Kind::ResponseBoundL12,
        "it is always the case that if $E holds for at least $D $, then $E holds afterwards for at \
         least $D",
    ),
    (
        Kind::ResponseDelayBoundL1,
        "it is always the case that if $E holds for at least $D $, then $E holds after at most $D",
    ),
    (
        Kind::ResponseBoundL1,
        "it is always the case that if $E holds for at least $D $, then $E holds afterwards",
    ),
    (
        Kind::ResponseDelayBoundL2,
        "it is always the case that if $E holds $, then $E holds after at most $D for at least $D",
    ),
    (
        Kind::InvarianceBoundL2,
        "it is always the case that if $E holds $, then $E holds for at least $D",
    ),
    (
        Kind::BndEntryCondition,
        "it is always the case that after $E holds for at least $D $, then $E holds",
    ),
    (
        Kind::TriggerResponseBoundL1,
        "it is always the case that after $E holds for at least $D $, and $E holds $, then $E holds",
    ),
    (
        Kind::TriggerResponseDelayBoundL1,
        "it is always the case that after $E holds for at least $D $, and $E holds $, then $E \
         holds after at most $D",
    ),
];

#[derive(Debug, Clone, Copy)]
enum El {
    Kw(&'static str),
    Expr,
    Dur,
    Comma,
}

struct Template {
    kind: Kind,
    els: Vec<El>,
    /// The sentence with `R`, `S`, ... and `c1`, `c2` for the slots (for messages).
    wording: String,
}

fn templates() -> &'static [Template] {
    static T: OnceLock<Vec<Template>> = OnceLock::new();
    T.get_or_init(|| {
        TEMPLATES
            .iter()
            .map(|&(kind, s)| {
                let mut els = Vec::new();
                let mut wording = String::new();
                let (mut e, mut d) = (0, 0);
                for w in s.split_whitespace() {
                    let (el, shown) = match w {
                        "$E" => {
                            e += 1;
                            (
                                El::Expr,
                                format!("\"{}\"", ["R", "S", "T", "U", "V", "W"][e - 1]),
                            )
                        }
                        "$D" => {
                            d += 1;
                            (El::Dur, format!("\"c{d}\" time units"))
                        }
                        "$," => (El::Comma, ",".into()),
                        _ => (El::Kw(w), w.to_string()),
                    };
                    els.push(el);
                    if shown != "," && !wording.is_empty() {
                        wording.push(' ');
                    }
                    wording.push_str(&shown);
                }
                Template { kind, els, wording }
            })
            .collect()
    })
}

fn class_name(k: Kind) -> String {
    format!("{k:?}Pattern")
}

// ---------------------------------------------------------------------------------------
// Parser: statements and sentence structure

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Bool,
    Int,
    Real,
}

impl Sort {
    fn name(self) -> &'static str {
        match self {
            Sort::Bool => "Bool",
            Sort::Int => "Int",
            Sort::Real => "Real",
        }
    }
}

#[derive(Debug, Clone)]
enum ConstVal {
    /// Negative?, digits.
    Int(bool, String),
    /// Negative?, decimal text.
    Real(bool, String),
    Bool(bool),
}

#[derive(Debug, Clone)]
enum DeclKind {
    Var(Sort, Option<&'static str>),
    Const(ConstVal),
}

#[derive(Debug, Clone)]
struct Decl {
    name: String,
    at: usize,
    kind: DeclKind,
}

#[derive(Debug, Clone)]
enum Scope {
    Globally,
    Before(usize),
    After(usize),
    AfterUntil(usize, usize),
    Between(usize, usize),
}

#[derive(Debug, Clone)]
enum DurVal {
    Num(String),
    Name(String),
    Bad(String),
}

#[derive(Debug, Clone)]
struct Dur {
    at: usize,
    val: DurVal,
    /// A physical unit (`sec`, `ms`, ...) instead of "time units".
    unit: Option<String>,
}

#[derive(Debug, Clone)]
struct Req {
    id: Option<String>,
    at: usize,
    /// Where the pattern starts.
    pattern_at: usize,
    /// The pattern's wording with slot names.
    wording: String,
    text: String,
    scope: Scope,
    kind: Kind,
    /// The `Str` tokens of the pattern's formulas, in order.
    exprs: Vec<usize>,
    durs: Vec<Dur>,
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    pos: usize,
    errors: Vec<RawError>,
    decls: Vec<Decl>,
    reqs: Vec<Req>,
}

/// A failed parse; the error is recorded already.
struct Failed;

impl Parser<'_> {
    fn tok(&self, i: usize) -> Option<Tok> {
        self.toks.get(i).copied()
    }

    fn src(&self, t: Tok) -> &str {
        &self.text[t.start..t.end]
    }

    fn is_kind(&self, i: usize, k: Tk) -> bool {
        self.tok(i).is_some_and(|t| t.kind == k)
    }

    fn is_kw(&self, i: usize, kw: &str) -> bool {
        self.tok(i)
            .is_some_and(|t| t.kind == Tk::Word && self.src(t).eq_ignore_ascii_case(kw))
    }

    fn lower(&self, i: usize) -> String {
        self.tok(i)
            .filter(|t| t.kind == Tk::Word)
            .map(|t| self.src(t).to_lowercase())
            .unwrap_or_default()
    }

    /// Where token `i` starts (the end of the text after the last token).
    fn at(&self, i: usize) -> usize {
        self.tok(i).map_or(self.text.len(), |t| t.start)
    }

    fn describe(&self, i: usize) -> String {
        match self.tok(i) {
            None => "the end of the file".into(),
            Some(t) => match t.kind {
                Tk::Str => format!("the quoted {}", self.src(t)),
                Tk::Num => format!("the number {}", self.src(t)),
                Tk::Word => format!("\"{}\"", self.src(t)),
                _ => format!("'{}'", self.src(t)),
            },
        }
    }

    fn error(&mut self, at: usize, msg: impl Into<String>) -> Failed {
        self.errors.push((at, msg.into()));
        Failed
    }

    /// An error at the current token, whose message `msg` makes from the token as
    /// [`Self::describe`] shows it.
    fn error_at_token(&mut self, msg: impl FnOnce(&str) -> String) -> Failed {
        let d = self.describe(self.pos);
        self.error(self.at(self.pos), msg(&d))
    }

    fn is_label(&self, i: usize) -> bool {
        self.tok(i)
            .is_some_and(|t| matches!(t.kind, Tk::Word | Tk::Num))
            && self.is_kind(i + 1, Tk::Colon)
    }

    /// Token `i` can start a statement: first on its line, and a label, a declaration or
    /// a scope.
    fn starts_statement(&self, i: usize) -> bool {
        let Some(t) = self.tok(i) else { return true };
        t.first
            && (self.is_label(i)
                || matches!(
                    self.lower(i).as_str(),
                    "input"
                        | "output"
                        | "internal"
                        | "hidden"
                        | "const"
                        | "globally"
                        | "before"
                        | "after"
                        | "between"
                ))
    }

    fn run(&mut self) {
        while self.pos < self.toks.len() {
            if self.errors.len() > MAX_ERRORS {
                return;
            }
            let start = self.pos;
            let ok = match self.lower(start).as_str() {
                "input" | "output" | "internal" | "hidden" if !self.is_label(start) => {
                    self.declaration()
                }
                "const" if !self.is_label(start) => self.constant(),
                _ => self.requirement(),
            };
            if ok.is_err() {
                self.pos = self.pos.max(start + 1);
                while !self.starts_statement(self.pos) {
                    self.pos += 1;
                }
            }
        }
    }

    /// `cid ::= ID | cid . ID` (the dots without spaces around them).
    fn name(&mut self) -> Result<(String, usize), Failed> {
        if !self.is_kind(self.pos, Tk::Word) {
            return Err(self.error_at_token(|d| format!("expected a name, found {d}")));
        }
        let at = self.at(self.pos);
        let mut end = self.toks[self.pos].end;
        self.pos += 1;
        while self.is_kind(self.pos, Tk::Dot)
            && self.toks[self.pos].start == end
            && self.is_kind(self.pos + 1, Tk::Word)
            && self.toks[self.pos + 1].start == end + 1
        {
            end = self.toks[self.pos + 1].end;
            self.pos += 2;
        }
        Ok((self.text[at..end].to_string(), at))
    }

    fn expect_kw(&mut self, kw: &str) -> Result<(), Failed> {
        if self.is_kw(self.pos, kw) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error_at_token(|d| format!("expected \"{kw}\", found {d}")))
        }
    }

    /// The statement ends here: the next token is on another line (or there is none).
    fn end_of_statement(&mut self) -> Result<(), Failed> {
        match self.tok(self.pos) {
            Some(t) if !t.first => {
                let d = self.describe(self.pos);
                Err(self.error(
                    t.start,
                    format!("unexpected text after the end of the statement: {d}"),
                ))
            }
            _ => Ok(()),
        }
    }

    /// `Input x is bool`, `Output y is int`, `Internal z is real` (`Hidden` too).
    fn declaration(&mut self) -> Result<(), Failed> {
        let role = match self.lower(self.pos).as_str() {
            "input" => Some("input"),
            "output" => Some("output"),
            _ => None,
        };
        self.pos += 1;
        let (name, at) = self.name()?;
        self.expect_kw("is")?;
        let sort = match self.lower(self.pos).as_str() {
            "bool" => Sort::Bool,
            "int" => Sort::Int,
            "real" => Sort::Real,
            _ => {
                return Err(self.error_at_token(|d| {
                    format!("unsupported type {d}: a variable is bool, int or real")
                }));
            }
        };
        self.declare(name, at, DeclKind::Var(sort, role))
    }

    /// `CONST NAME is 5` (also `-5`, `2.5`, `-2.5`, `true`, `false`).
    fn constant(&mut self) -> Result<(), Failed> {
        self.pos += 1;
        let (name, at) = self.name()?;
        self.expect_kw("is")?;
        let neg = self.is_kind(self.pos, Tk::Minus);
        if neg {
            self.pos += 1;
        }
        let val = match self.tok(self.pos) {
            Some(t) if t.kind == Tk::Num => {
                let s = self.src(t).to_string();
                if s.contains('.') {
                    ConstVal::Real(neg, s)
                } else {
                    ConstVal::Int(neg, strip_zeros(&s))
                }
            }
            Some(_) if !neg && (self.is_kw(self.pos, "true") || self.is_kw(self.pos, "false")) => {
                ConstVal::Bool(self.is_kw(self.pos, "true"))
            }
            _ => {
                return Err(self.error_at_token(|d| {
                    format!("expected the constant's value (a number, true or false), found {d}")
                }));
            }
        };
        self.declare(name, at, DeclKind::Const(val))
    }

    /// The current token ends declaration `name` of `kind` (at `at`): the statement must
    /// end after it.
    fn declare(&mut self, name: String, at: usize, kind: DeclKind) -> Result<(), Failed> {
        self.pos += 1;
        self.end_of_statement()?;
        self.decls.push(Decl { name, at, kind });
        Ok(())
    }

    fn expr_slot(&mut self) -> Result<usize, Failed> {
        if self.is_kind(self.pos, Tk::Str) {
            self.pos += 1;
            Ok(self.pos - 1)
        } else {
            Err(self.error_at_token(|d| format!("expected a quoted formula (\"...\"), found {d}")))
        }
    }

    fn scope(&mut self) -> Result<Scope, Failed> {
        let s = match self.lower(self.pos).as_str() {
            "globally" => {
                self.pos += 1;
                Scope::Globally
            }
            "before" => {
                self.pos += 1;
                Scope::Before(self.expr_slot()?)
            }
            "after" => {
                self.pos += 1;
                let q = self.expr_slot()?;
                if self.is_kw(self.pos, "until") {
                    self.pos += 1;
                    Scope::AfterUntil(q, self.expr_slot()?)
                } else {
                    Scope::After(q)
                }
            }
            "between" => {
                self.pos += 1;
                let q = self.expr_slot()?;
                self.expect_kw("and")?;
                Scope::Between(q, self.expr_slot()?)
            }
            _ => {
                return Err(self.error_at_token(|d| {
                    format!(
                        "expected a scope (Globally, Before \"R\", After \"Q\", After \"Q\" until \
                         \"R\" or Between \"Q\" and \"R\"), found {d}"
                    )
                }));
            }
        };
        if self.is_kind(self.pos, Tk::Comma) {
            self.pos += 1;
        }
        Ok(s)
    }

    /// A duration: a number (quoted or not) or a constant name (quoted or not), then
    /// "time units" or a physical unit.
    fn duration(&self, i: usize) -> Result<(Dur, usize), (usize, String)> {
        let Some(t) = self.tok(i) else {
            return Err((i, "a duration".into()));
        };
        let (at, val, mut j) = match t.kind {
            Tk::Num => (t.start, DurVal::Num(self.src(t).into()), i + 1),
            Tk::Str => {
                let inner = &self.text[t.start + 1..t.end - 1];
                let lead = inner.len() - inner.trim_start().len();
                let s = inner.trim();
                let val = if is_decimal(s) {
                    DurVal::Num(s.into())
                } else if is_cid(s) {
                    DurVal::Name(s.into())
                } else {
                    DurVal::Bad(s.into())
                };
                (t.start + 1 + lead, val, i + 1)
            }
            Tk::Word => {
                let mut j = i + 1;
                let mut end = t.end;
                while self.is_kind(j, Tk::Dot)
                    && self.toks[j].start == end
                    && self.is_kind(j + 1, Tk::Word)
                    && self.toks[j + 1].start == end + 1
                {
                    end = self.toks[j + 1].end;
                    j += 2;
                }
                (t.start, DurVal::Name(self.text[t.start..end].into()), j)
            }
            Tk::Minus if self.is_kind(i + 1, Tk::Num) => {
                let n = self.toks[i + 1];
                (t.start, DurVal::Bad(format!("-{}", self.src(n))), i + 2)
            }
            _ => return Err((i, "a duration".into())),
        };
        let unit = match self.lower(j).as_str() {
            "time" => {
                if !self.is_kw(j + 1, "units") {
                    return Err((j + 1, "\"units\"".into()));
                }
                j += 2;
                None
            }
            u @ ("sec" | "msec" | "ms" | "usec" | "us" | "µsec" | "µs")
                if matches!(val, DurVal::Num(_)) =>
            {
                j += 1;
                Some(u.to_string())
            }
            _ => return Err((j, "\"time units\"".into())),
        };
        Ok((Dur { at, val, unit }, j))
    }

    /// Matches one template from token `start`: the end, the formula tokens and the
    /// durations; or how far it got and what it expected there.
    #[allow(clippy::type_complexity)]
    fn match_template(
        &self,
        els: &[El],
        start: usize,
    ) -> Result<(usize, Vec<usize>, Vec<Dur>), (usize, String)> {
        let mut i = start;
        let (mut exprs, mut durs) = (Vec::new(), Vec::new());
        for el in els {
            match *el {
                El::Kw(w) => {
                    if !self.is_kw(i, w) {
                        return Err((i, format!("\"{w}\"")));
                    }
                    i += 1;
                }
                El::Comma => {
                    if self.is_kind(i, Tk::Comma) {
                        i += 1;
                    }
                }
                El::Expr => {
                    if !self.is_kind(i, Tk::Str) {
                        return Err((i, "a quoted formula".into()));
                    }
                    exprs.push(i);
                    i += 1;
                }
                El::Dur => {
                    let (d, j) = self.duration(i)?;
                    durs.push(d);
                    i = j;
                }
            }
        }
        Ok((i, exprs, durs))
    }

    fn requirement(&mut self) -> Result<(), Failed> {
        let first = self.pos;
        let (id, at) = if self.is_label(self.pos) {
            let t = self.toks[self.pos];
            self.pos += 2;
            (Some(self.src(t).to_string()), t.start)
        } else {
            (None, self.at(self.pos))
        };
        let text_start = self.at(self.pos);
        if let Some(t) = self.tok(self.pos) {
            if self.src(t).starts_with(['⌈', '⌊']) {
                return Err(self.error(
                    t.start,
                    "countertrace formulas are not imported: write the requirement as a \
                     pattern sentence",
                ));
            }
        }
        let scope_word = matches!(
            self.lower(self.pos).as_str(),
            "globally" | "before" | "after" | "between"
        );
        if id.is_none() && !scope_word {
            let d = self.describe(first);
            return Err(self.error(
                self.at(first),
                format!(
                    "expected a requirement (\"id: scope, pattern\"), a declaration (Input, \
                     Output, Internal, CONST) or a comment, found {d}"
                ),
            ));
        }
        let scope = self.scope()?;
        let pstart = self.pos;
        let mut best: Option<(usize, &Template, Vec<usize>, Vec<Dur>)> = None;
        let mut far = (pstart, Vec::<String>::new());
        for t in templates() {
            match self.match_template(&t.els, pstart) {
                Ok((end, e, d)) => {
                    let longer = match &best {
                        Some(b) => end > b.0,
                        None => true,
                    };
                    if longer {
                        best = Some((end, t, e, d));
                    }
                }
                Err((i, what)) => {
                    if i > far.0 {
                        far = (i, vec![what]);
                    } else if i == far.0 && !far.1.contains(&what) {
                        far.1.push(what);
                    }
                }
            }
        }
        let expected = |far: &(usize, Vec<String>), p: &Self| {
            let list = match far.1.len() {
                0 => "the end of the requirement".to_string(),
                1 => far.1[0].clone(),
                n => format!("{} or {}", far.1[..n - 1].join(", "), far.1[n - 1]),
            };
            format!("expected {list}, found {}", p.describe(far.0))
        };
        let Some((mut end, tpl, exprs, durs)) = best else {
            let msg = if far.0 == pstart {
                format!(
                    "not a pattern of Ultimate's grammar: expected \"it is always the case \
                     that ...\", \"it is never the case that ...\", a quoted formula or \
                     \"transitions\", found {}",
                    self.describe(pstart)
                )
            } else {
                format!(
                    "not a pattern of Ultimate's grammar: {}",
                    expected(&far, self)
                )
            };
            self.pos = far.0;
            return Err(self.error(self.at(far.0), msg));
        };
        if self.is_kind(end, Tk::Dot) {
            end += 1;
        }
        self.pos = end;
        if self.tok(end).is_some_and(|t| !t.first) {
            if far.0 > end {
                let msg = format!(
                    "not a pattern of Ultimate's grammar: {}",
                    expected(&far, self)
                );
                self.pos = far.0;
                return Err(self.error(self.at(far.0), msg));
            }
            return self.end_of_statement();
        }
        let kind = tpl.kind;
        let last = self.toks[end - 1].end;
        self.reqs.push(Req {
            id,
            at,
            pattern_at: self.at(pstart),
            wording: tpl.wording.clone(),
            text: one_line(&self.text[text_start..last]),
            scope,
            kind,
            exprs,
            durs,
        });
        Ok(())
    }
}

/// `digits` or `digits.digits`.
fn is_decimal(s: &str) -> bool {
    let (i, f) = s.split_once('.').unwrap_or((s, "0"));
    !i.is_empty() && !f.is_empty() && (i.bytes().chain(f.bytes())).all(|b| b.is_ascii_digit())
}

/// A constant name: `ID(.ID)*`.
fn is_cid(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            let mut cs = p.chars();
            cs.next().is_some_and(is_letter) && cs.all(is_word_char)
        })
}

fn strip_zeros(digits: &str) -> String {
    let s = digits.trim_start_matches('0');
    if s.is_empty() {
        "0".into()
    } else {
        s.into()
    }
}

// ---------------------------------------------------------------------------------------
// Numbers and durations

/// An exact non-negative number `num / den`.
#[derive(Debug, Clone, Copy)]
struct Ratio {
    num: u128,
    den: u128,
}

/// `digits[.digits]` exactly, or `None` (not a decimal, or too many digits).
fn ratio(s: &str) -> Option<Ratio> {
    if !is_decimal(s) {
        return None;
    }
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    let i = i.trim_start_matches('0');
    if i.len() + f.len() > MAX_DIGITS {
        return None;
    }
    let num: u128 = format!("{i}{f}").parse().unwrap_or(0);
    Some(Ratio {
        num,
        den: 10u128.pow(f.len() as u32),
    })
}

fn gcd_u128(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd_u128(b, a % b)
    }
}

/// The greatest common divisor of two non-negative rationals (`None` on overflow).
fn ratio_gcd(a: Ratio, b: Ratio) -> Option<Ratio> {
    let x = a.num.checked_mul(b.den)?;
    let y = b.num.checked_mul(a.den)?;
    let num = gcd_u128(x, y);
    let den = a.den.checked_mul(b.den)?;
    let g = gcd_u128(num, den).max(1);
    Some(Ratio {
        num: num / g,
        den: den / g,
    })
}

/// A rational whose denominator divides a power of ten, as a decimal (`2.5`); others as
/// `n/d` (not produced by the durations of a file).
fn ratio_text(r: Ratio) -> String {
    let g = gcd_u128(r.num, r.den).max(1);
    let (num, den) = (r.num / g, r.den / g);
    let mut d = den;
    let mut digits = 0u32;
    while d % 10 == 0 {
        d /= 10;
        digits += 1;
    }
    while d % 2 == 0 || d % 5 == 0 {
        // A denominator of 2s and 5s: scale to a power of ten.
        d = if d % 2 == 0 { d / 2 } else { d / 5 };
        digits += 1;
    }
    if d != 1 {
        return format!("{num}/{den}");
    }
    let scale = 10u128.pow(digits);
    let scaled = num * (scale / den);
    let int = scaled / scale;
    let frac = scaled % scale;
    if digits == 0 || frac == 0 {
        int.to_string()
    } else {
        let f = format!("{frac:0width$}", width = digits as usize);
        format!("{int}.{}", f.trim_end_matches('0'))
    }
}

/// Why discrete time has no reading of a requirement (`None`: it has one).
fn discrete_refusal(r: &Req) -> Option<String> {
    let unsupported = matches!(
        r.kind,
        Kind::Response
            | Kind::ExistenceBoundU
            | Kind::Precedence
            | Kind::PrecedenceChain12
            | Kind::PrecedenceChain21
            | Kind::ResponseChain12
            | Kind::ConstrainedChain
            | Kind::EdgeResponseBoundU1
            | Kind::EdgeResponseDelayBoundL2
            | Kind::ReccurrenceBoundL
            | Kind::UniversalityDelay
            | Kind::ResponseDelayBoundL2
            | Kind::TriggerResponseBoundL1
            | Kind::TriggerResponseDelayBoundL1
    );
    if unsupported {
        return Some(format!(
            "pattern not supported in discrete time: {} ({}): vera's discrete keys have no \
             counterpart; import it in dense time",
            class_name(r.kind),
            r.wording
        ));
    }
    if r.kind == Kind::Initialization && !matches!(r.scope, Scope::Globally) {
        return Some(format!(
            "pattern not supported in discrete time with a scope other than Globally: {} ({})",
            class_name(r.kind),
            r.wording
        ));
    }
    None
}

/// Hanfor's name of a pattern.
fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Absence => "Absence",
        Kind::Universality => "Universality",
        Kind::Initialization => "Initialization",
        Kind::Persistence => "Persistence",
        Kind::Invariance => "Invariance",
        Kind::Response => "Response",
        Kind::ExistenceBoundU => "ExistenceBoundU",
        Kind::Precedence => "Precedence",
        Kind::PrecedenceChain12 => "PrecedenceChain12",
        Kind::PrecedenceChain21 => "PrecedenceChain21",
        Kind::ResponseChain12 => "ResponseChain12",
        Kind::ConstrainedChain => "ConstrainedChain",
        Kind::DurationBoundL => "DurationBoundL",
        Kind::DurationBoundU => "DurationBoundU",
        Kind::EdgeResponseBoundL2 => "EdgeResponseBoundL2",
        Kind::EdgeResponseBoundU1 => "EdgeResponseBoundU1",
        Kind::EdgeResponseDelay => "EdgeResponseDelay",
        Kind::EdgeResponseDelayBoundL2 => "EdgeResponseDelayBoundL2",
        Kind::ReccurrenceBoundL => "ReccurrenceBoundL",
        Kind::UniversalityDelay => "UniversalityDelay",
        Kind::ResponseDelay => "ResponseDelay",
        Kind::ResponseBoundL12 => "ResponseBoundL12",
        Kind::ResponseDelayBoundL1 => "ResponseDelayBoundL1",
        Kind::ResponseBoundL1 => "ResponseBoundL1",
        Kind::ResponseDelayBoundL2 => "ResponseDelayBoundL2",
        Kind::InvarianceBoundL2 => "InvarianceBoundL2",
        Kind::BndEntryCondition => "BndEntryCondition",
        Kind::TriggerResponseBoundL1 => "TriggerResponseBoundL1",
        Kind::TriggerResponseDelayBoundL1 => "TriggerResponseDelayBoundL1",
    }
}

/// A decimal without needless zeros: `50.0` is `50`, `2.50` is `2.5`, `007` is `7`.
fn normal_decimal(s: &str) -> String {
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    let i = strip_zeros(i);
    let f = f.trim_end_matches('0');
    if f.is_empty() {
        i
    } else {
        format!("{i}.{f}")
    }
}

struct Tick {
    text: String,
    secs: Ratio,
}

fn parse_tick(s: &str) -> Result<Tick, String> {
    let bad = || {
        format!(
            "the tick \"{s}\" is not a duration: write a number and a unit (ms, s, min, h), \
             e.g. \"100 ms\""
        )
    };
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(bad)?;
    let (n, unit) = (&t[..split], t[split..].trim());
    let r = ratio(n).ok_or_else(bad)?;
    let (mul, div) = match unit {
        "us" | "µs" | "usec" | "microsecond" | "microseconds" => (1, 1_000_000),
        "ms" | "msec" | "millisecond" | "milliseconds" => (1, 1000),
        "s" | "sec" | "secs" | "second" | "seconds" => (1, 1),
        "min" | "mins" | "minute" | "minutes" => (60, 1),
        "h" | "hr" | "hour" | "hours" => (3600, 1),
        _ => return Err(bad()),
    };
    if r.num == 0 {
        return Err(format!("the tick \"{s}\" is zero"));
    }
    Ok(Tick {
        text: format!("{} {unit}", normal_decimal(n)),
        secs: Ratio {
            num: r.num * mul,
            den: r.den * div,
        },
    })
}

// ---------------------------------------------------------------------------------------
// Formulas (the text between the quotes)

#[derive(Debug, Clone, PartialEq)]
enum ETok {
    Id(String),
    Int(String),
    Real(String),
    Op(&'static str),
    LPar,
    RPar,
    Comma,
    True,
    False,
}

#[derive(Debug, Clone)]
enum Ex {
    Bool(bool),
    Int(String),
    Real(String),
    Var(String, Sort),
    Not(Box<Node>),
    Neg(Box<Node>),
    Abs(Box<Node>),
    /// `&&`, `||`, `+`, `-`, `*`, `/`, `%` with two or more operands, left to right.
    Nary(&'static str, Vec<Node>),
    /// `==>`, `==`, `!=`, `<`, `<=`, `>`, `>=`.
    Bin(&'static str, Box<Node>, Box<Node>),
}

#[derive(Debug, Clone)]
struct Node {
    e: Ex,
    /// Byte offset in the file.
    at: usize,
}

type ExResult<T> = Result<T, RawError>;

fn lex_formula(s: &str, base: usize) -> ExResult<Vec<(ETok, usize)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        let at = base + i;
        let rest = &s[i..];
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if c.is_ascii_digit() {
            let n = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let r = &rest[n..];
            if let Some(f) = r.strip_prefix('.') {
                let m = f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len());
                if m == 0 {
                    return Err((
                        base + i + n,
                        "a decimal point without digits after it".into(),
                    ));
                }
                out.push((ETok::Real(rest[..n + 1 + m].into()), at));
                i += n + 1 + m;
            } else {
                out.push((ETok::Int(strip_zeros(&rest[..n])), at));
                i += n;
            }
            continue;
        }
        if is_letter(c) {
            let mut j = c.len_utf8();
            loop {
                match rest[j..].chars().next() {
                    Some(d) if is_word_char(d) => j += d.len_utf8(),
                    Some('.') if rest[j + 1..].starts_with(is_letter) => j += 1,
                    _ => break,
                }
            }
            let w = &rest[..j];
            out.push((
                match w.to_ascii_lowercase().as_str() {
                    "true" => ETok::True,
                    "false" => ETok::False,
                    _ => ETok::Id(w.into()),
                },
                at,
            ));
            i += j;
            continue;
        }
        const OPS: &[(&str, &str)] = &[
            ("==>", "==>"),
            ("⇒", "==>"),
            ("&&", "&&"),
            ("∧", "&&"),
            ("||", "||"),
            ("∨", "||"),
            ("==", "=="),
            ("!=", "!="),
            ("≠", "!="),
            ("<=", "<="),
            ("≤", "<="),
            (">=", ">="),
            ("≥", ">="),
            ("!", "!"),
            ("¬", "!"),
            ("<", "<"),
            (">", ">"),
            ("+", "+"),
            ("-", "-"),
            ("*", "*"),
            ("/", "/"),
            ("%", "%"),
        ];
        if let Some(&(src, op)) = OPS.iter().find(|(src, _)| rest.starts_with(src)) {
            out.push((ETok::Op(op), at));
            i += src.len();
            continue;
        }
        let t = match c {
            '(' => ETok::LPar,
            ')' => ETok::RPar,
            ',' => ETok::Comma,
            '=' => return Err((at, "\"=\" is not an operator: write == for equality".into())),
            '&' => return Err((at, "\"&\" is not an operator: write && for \"and\"".into())),
            '|' => return Err((at, "\"|\" is not an operator: write || for \"or\"".into())),
            _ => return Err((at, format!("unexpected character '{c}' in a formula"))),
        };
        out.push((t, at));
        i += c.len_utf8();
    }
    Ok(out)
}

enum Sym {
    Var(Sort),
    Const(ConstVal),
}

struct FormulaParser<'a> {
    toks: Vec<(ETok, usize)>,
    i: usize,
    end: usize,
    depth: usize,
    syms: &'a HashMap<String, (Sym, usize)>,
    used_consts: Vec<String>,
    /// `prev(...)` is allowed (dense time).
    allow_prev: bool,
    /// Inside `prev(...)`: variables stand for their previous values.
    in_prev: bool,
    /// The variables used under `prev`.
    prev_vars: Vec<(String, Sort)>,
}

impl FormulaParser<'_> {
    fn peek(&self) -> Option<&ETok> {
        self.toks.get(self.i).map(|t| &t.0)
    }

    fn at(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.1)
    }

    fn op(&self) -> Option<&'static str> {
        match self.peek() {
            Some(ETok::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn found(&self) -> String {
        match self.toks.get(self.i) {
            None => "the end of the formula".into(),
            Some((t, _)) => match t {
                ETok::Id(s) | ETok::Int(s) | ETok::Real(s) => format!("\"{s}\""),
                ETok::Op(o) => format!("\"{o}\""),
                ETok::LPar => "\"(\"".into(),
                ETok::RPar => "\")\"".into(),
                ETok::Comma => "\",\"".into(),
                ETok::True => "\"true\"".into(),
                ETok::False => "\"false\"".into(),
            },
        }
    }

    /// The `)` that closes the one argument of function `f`.
    fn close_call(&mut self, f: &str) -> ExResult<()> {
        if self.peek() != Some(&ETok::RPar) {
            return Err((
                self.at(),
                format!(
                    "expected \")\" ({f} takes one argument), found {}",
                    self.found()
                ),
            ));
        }
        self.i += 1;
        Ok(())
    }

    fn deeper(&mut self) -> ExResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err((
                self.at(),
                format!("the formula nests more than {MAX_DEPTH} deep"),
            ));
        }
        Ok(())
    }

    fn formula(&mut self) -> ExResult<Node> {
        if self.toks.is_empty() {
            return Err((self.end, "an empty formula".into()));
        }
        let n = self.implies()?;
        if self.i < self.toks.len() {
            return Err((
                self.at(),
                format!("unexpected {} in the formula", self.found()),
            ));
        }
        Ok(n)
    }

    /// `a ==> b ==> c` is `a ==> (b ==> c)`.
    fn implies(&mut self) -> ExResult<Node> {
        self.deeper()?;
        let l = self.and_or()?;
        let r = if self.op() == Some("==>") {
            self.i += 1;
            let r = self.implies()?;
            Node {
                at: l.at,
                e: Ex::Bin("==>", Box::new(l), Box::new(r)),
            }
        } else {
            l
        };
        self.depth -= 1;
        Ok(r)
    }

    /// A chain of `&&` or of `||`; mixing them needs parentheses (Ultimate's grammar).
    fn and_or(&mut self) -> ExResult<Node> {
        let first = self.comparison()?;
        let Some(op) = self.op().filter(|o| matches!(*o, "&&" | "||")) else {
            return Ok(first);
        };
        let at = first.at;
        let mut items = vec![first];
        while let Some(o) = self.op().filter(|o| matches!(*o, "&&" | "||")) {
            if o != op {
                return Err((
                    self.at(),
                    format!("{op} and {o} mixed without parentheses: write (a {op} b) {o} c"),
                ));
            }
            self.i += 1;
            items.push(self.comparison()?);
        }
        Ok(Node {
            at,
            e: Ex::Nary(op, items),
        })
    }

    fn comparison(&mut self) -> ExResult<Node> {
        let l = self.sum()?;
        let is_cmp = |o: Option<&str>| matches!(o, Some("==" | "!=" | "<" | "<=" | ">" | ">="));
        if !is_cmp(self.op()) {
            return Ok(l);
        }
        let op = self.op().unwrap_or("==");
        self.i += 1;
        let r = self.sum()?;
        if is_cmp(self.op()) {
            return Err((
                self.at(),
                "comparisons do not chain: use parentheses and && ".into(),
            ));
        }
        Ok(Node {
            at: l.at,
            e: Ex::Bin(op, Box::new(l), Box::new(r)),
        })
    }

    fn chain(
        &mut self,
        ops: &[&'static str],
        next: fn(&mut Self) -> ExResult<Node>,
    ) -> ExResult<Node> {
        let first = next(self)?;
        let at = first.at;
        let mut cur: Option<(&'static str, Vec<Node>)> = None;
        let mut acc = first;
        while let Some(o) = self.op().filter(|o| ops.contains(o)) {
            self.i += 1;
            let r = next(self)?;
            match &mut cur {
                Some((op, items)) if *op == o && o != "%" => items.push(r),
                _ => {
                    let l = match cur.take() {
                        Some((op, items)) => Node {
                            at,
                            e: Ex::Nary(op, items),
                        },
                        None => acc,
                    };
                    cur = Some((o, vec![l, r]));
                    acc = Node {
                        at,
                        e: Ex::Bool(false),
                    };
                }
            }
        }
        Ok(match cur {
            Some((op, items)) => Node {
                at,
                e: Ex::Nary(op, items),
            },
            None => acc,
        })
    }

    fn sum(&mut self) -> ExResult<Node> {
        self.chain(&["+", "-"], Self::product)
    }

    fn product(&mut self) -> ExResult<Node> {
        self.chain(&["*", "/", "%"], Self::unary)
    }

    fn unary(&mut self) -> ExResult<Node> {
        let at = self.at();
        match self.op() {
            Some(o @ ("!" | "-")) => {
                self.i += 1;
                self.deeper()?;
                let x = self.unary()?;
                self.depth -= 1;
                Ok(Node {
                    at,
                    e: if o == "!" {
                        Ex::Not(Box::new(x))
                    } else {
                        Ex::Neg(Box::new(x))
                    },
                })
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> ExResult<Node> {
        let at = self.at();
        let Some(t) = self.peek().cloned() else {
            return Err((at, "the formula ends where an operand is expected".into()));
        };
        self.i += 1;
        let e = match t {
            ETok::True => Ex::Bool(true),
            ETok::False => Ex::Bool(false),
            ETok::Int(s) => Ex::Int(s),
            ETok::Real(s) => Ex::Real(s),
            ETok::LPar => {
                self.deeper()?;
                let n = self.implies()?;
                self.depth -= 1;
                if self.peek() != Some(&ETok::RPar) {
                    return Err((self.at(), format!("expected \")\", found {}", self.found())));
                }
                self.i += 1;
                return Ok(n);
            }
            ETok::Id(name)
                if name == "prev" && self.allow_prev && self.peek() == Some(&ETok::LPar) =>
            {
                if self.in_prev {
                    return Err((at, "prev(...) inside prev(...) is not supported".into()));
                }
                self.i += 1;
                self.deeper()?;
                self.in_prev = true;
                let x = self.implies();
                self.in_prev = false;
                let x = x?;
                self.depth -= 1;
                self.close_call("prev")?;
                return Ok(x);
            }
            ETok::Id(name) if self.peek() == Some(&ETok::LPar) => {
                if name != "abs" {
                    return Err((
                        at,
                        format!("function {name}(...) is not supported (only abs is)"),
                    ));
                }
                self.i += 1;
                self.deeper()?;
                let x = self.implies()?;
                self.depth -= 1;
                self.close_call("abs")?;
                Ex::Abs(Box::new(x))
            }
            ETok::Id(name) => match self.syms.get(&name) {
                Some((Sym::Var(s), _)) if self.in_prev => {
                    let h = format!("{name}@prev");
                    if !self.prev_vars.iter().any(|(n, _)| *n == h) {
                        self.prev_vars.push((h.clone(), *s));
                    }
                    Ex::Var(h, *s)
                }
                Some((Sym::Var(s), _)) => Ex::Var(name, *s),
                Some((Sym::Const(v), _)) => {
                    if !self.used_consts.contains(&name) {
                        self.used_consts.push(name);
                    }
                    let lit = |neg: bool, e: Ex| {
                        if neg {
                            Ex::Neg(Box::new(Node { at, e }))
                        } else {
                            e
                        }
                    };
                    match v {
                        ConstVal::Int(neg, d) => lit(*neg, Ex::Int(d.clone())),
                        ConstVal::Real(neg, d) => lit(*neg, Ex::Real(d.clone())),
                        ConstVal::Bool(b) => Ex::Bool(*b),
                    }
                }
                None => return Err((at, format!("undeclared name {name}"))),
            },
            _ => {
                self.i -= 1;
                return Err((at, format!("expected an operand, found {}", self.found())));
            }
        };
        Ok(Node { at, e })
    }
}

/// The type of a formula: its sort, and whether it is an integer literal (possibly
/// negated), which may be read as a Real.
fn type_of(n: &Node) -> ExResult<(Sort, bool)> {
    let numeric = |x: &Node, what: &str| -> ExResult<(Sort, bool)> {
        let t = type_of(x)?;
        if t.0 == Sort::Bool {
            return Err((x.at, format!("{what} needs a number, not a condition")));
        }
        Ok(t)
    };
    let boolean = |x: &Node, what: &str| -> ExResult<()> {
        let t = type_of(x)?;
        if t.0 != Sort::Bool {
            return Err((
                x.at,
                format!("{what} needs a condition, not an {} term", t.0.name()),
            ));
        }
        Ok(())
    };
    // The common sort of numeric operands: Int, or Real when one is Real and every Int is
    // a literal.
    let unify = |xs: &[&Node], what: &str| -> ExResult<(Sort, bool)> {
        let ts = xs
            .iter()
            .map(|x| numeric(x, what))
            .collect::<ExResult<Vec<_>>>()?;
        if ts.iter().any(|t| t.0 == Sort::Real) {
            if let Some((x, _)) = xs.iter().zip(&ts).find(|(_, t)| t.0 == Sort::Int && !t.1) {
                return Err((x.at, format!("{what} mixes an Int term with a Real one")));
            }
            return Ok((Sort::Real, false));
        }
        Ok((Sort::Int, ts.iter().all(|t| t.1)))
    };
    Ok(match &n.e {
        Ex::Bool(_) => (Sort::Bool, false),
        Ex::Int(_) => (Sort::Int, true),
        Ex::Real(_) => (Sort::Real, false),
        Ex::Var(_, s) => (*s, false),
        Ex::Not(x) => {
            boolean(x, "!")?;
            (Sort::Bool, false)
        }
        Ex::Neg(x) => numeric(x, "unary -")?,
        Ex::Abs(x) => {
            let t = numeric(x, "abs")?;
            if t.0 == Sort::Real {
                return Err((x.at, "abs is defined on Int only".into()));
            }
            (Sort::Int, false)
        }
        Ex::Nary(op @ ("&&" | "||"), xs) => {
            for x in xs {
                boolean(x, op)?;
            }
            (Sort::Bool, false)
        }
        Ex::Nary(op, xs) => {
            let t = unify(&xs.iter().collect::<Vec<_>>(), op)?;
            if *op == "%" && t.0 == Sort::Real {
                return Err((n.at, "% is defined on Int only".into()));
            }
            // What vera's spec loader refuses is refused here, at its place: specs are
            // linear, and a division by zero has no value.
            if *op == "*" && xs.iter().filter(|x| has_var(x)).count() > 1 {
                return Err((
                    n.at,
                    "a product of two variable terms: vera's specs are linear".into(),
                ));
            }
            if matches!(*op, "/" | "%") {
                for x in &xs[1..] {
                    if has_var(x) {
                        return Err((
                            x.at,
                            format!("{op} by a variable term: vera's specs are linear"),
                        ));
                    }
                    if is_zero(x) {
                        return Err((
                            x.at,
                            format!("{op} by zero: SMT-LIB leaves its value unspecified, and vera's specs refuse it"),
                        ));
                    }
                }
            }
            (t.0, false)
        }
        Ex::Bin("==>", l, r) => {
            boolean(l, "==>")?;
            boolean(r, "==>")?;
            (Sort::Bool, false)
        }
        Ex::Bin(op, l, r) => {
            let lt = type_of(l)?;
            let rt = type_of(r)?;
            if matches!(*op, "==" | "!=") && (lt.0 == Sort::Bool || rt.0 == Sort::Bool) {
                if lt.0 != rt.0 {
                    return Err((n.at, format!("{op} compares a condition with a number")));
                }
            } else {
                unify(&[l, r], op)?;
            }
            (Sort::Bool, false)
        }
    })
}

/// Whether a formula mentions a variable (constants were replaced by their values).
fn has_var(n: &Node) -> bool {
    match &n.e {
        Ex::Var(..) => true,
        Ex::Bool(_) | Ex::Int(_) | Ex::Real(_) => false,
        Ex::Not(x) | Ex::Neg(x) | Ex::Abs(x) => has_var(x),
        Ex::Nary(_, xs) => xs.iter().any(has_var),
        Ex::Bin(_, l, r) => has_var(l) || has_var(r),
    }
}

/// Whether a term is the number zero as written (`0`, `0.0`, `-0`).
fn is_zero(n: &Node) -> bool {
    match &n.e {
        Ex::Int(d) | Ex::Real(d) => d.chars().all(|c| c == '0' || c == '.'),
        Ex::Neg(x) => is_zero(x),
        _ => false,
    }
}

/// SMT-LIB text of a formula that type-checked; `real`: print integer literals as Reals.
fn smt(n: &Node, real: bool, out: &mut String) {
    let sort = |x: &Node| type_of(x).map_or(Sort::Int, |t| t.0);
    match &n.e {
        Ex::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Ex::Int(d) if real => {
            let _ = write!(out, "{d}.0");
        }
        Ex::Int(d) | Ex::Real(d) => out.push_str(d),
        Ex::Var(v, _) => out.push_str(v),
        Ex::Not(x) => {
            out.push_str("(not ");
            smt(x, false, out);
            out.push(')');
        }
        Ex::Neg(x) => {
            out.push_str("(- ");
            smt(x, real, out);
            out.push(')');
        }
        Ex::Abs(x) => {
            out.push_str("(abs ");
            smt(x, false, out);
            out.push(')');
        }
        Ex::Nary(op, xs) => {
            let r = real || xs.iter().any(|x| sort(x) == Sort::Real);
            let name = match *op {
                "&&" => "and",
                "||" => "or",
                "/" if r => "/",
                "/" => "div",
                "%" => "mod",
                o => o,
            };
            let _ = write!(out, "({name}");
            for x in xs {
                out.push(' ');
                smt(x, r && sort(x) != Sort::Bool, out);
            }
            out.push(')');
        }
        Ex::Bin(op, l, r) => {
            let name = match *op {
                "==>" => "=>",
                "==" => "=",
                "!=" => "distinct",
                o => o,
            };
            let rl = sort(l) == Sort::Real || sort(r) == Sort::Real;
            let _ = write!(out, "({name} ");
            smt(l, rl, out);
            out.push(' ');
            smt(r, rl, out);
            out.push(')');
        }
    }
}

// ---------------------------------------------------------------------------------------
// From parsed statements to the spec

#[derive(Serialize, Default)]
struct Timed {
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope_before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope_between: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope_and: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope_after: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope_until: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    initially: Option<bool>,
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    if_: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    when: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    held_for: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    then: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    within: Option<String>,
    #[serde(rename = "for", skip_serializing_if = "Option::is_none")]
    for_: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    until: Option<String>,
    #[serde(rename = "R", skip_serializing_if = "Option::is_none")]
    r: Option<String>,
    #[serde(rename = "S", skip_serializing_if = "Option::is_none")]
    s: Option<String>,
    #[serde(rename = "T", skip_serializing_if = "Option::is_none")]
    t: Option<String>,
    #[serde(rename = "U", skip_serializing_if = "Option::is_none")]
    u: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    c1: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    c2: Option<String>,
}

/// SMT-LIB's reserved words and the names of the operators vera's formulas use: not
/// usable as variable names.
const RESERVED: &[&str] = &[
    "and",
    "or",
    "not",
    "xor",
    "ite",
    "distinct",
    "div",
    "mod",
    "abs",
    "let",
    "forall",
    "exists",
    "true",
    "false",
    "to_real",
    "to_int",
    "is_int",
    "as",
    "par",
    "_",
    "!",
    "match",
    "NUMERAL",
    "DECIMAL",
    "STRING",
    "BINARY",
    "HEXADECIMAL",
];

struct Builder<'a> {
    text: &'a str,
    lines: Lines<'a>,
    tick: Option<Tick>,
    raw: Vec<RawError>,
    syms: HashMap<String, (Sym, usize)>,
    durations: BTreeMap<String, String>,
    consts_in_formulas: Vec<String>,
    /// Dense time (else discrete).
    dense: bool,
    /// Dense time: durations are counted in microseconds (the file gives some in
    /// `sec`, `msec` or `usec`).
    micro: bool,
    /// Variables whose previous value a formula uses (`prev(x)`): `x@prev`.
    history: Vec<(String, Sort)>,
}

impl Builder<'_> {
    /// Declares the `x@prev` variables that formulas use and adds the notes on them and
    /// on the constants replaced by their values.
    fn history_and_constants(&self, variables: &mut Vec<VarOut>, notes: &mut Vec<String>) {
        for (name, sort) in &self.history {
            variables.push(VarOut {
                name: name.clone(),
                sort: sort.name(),
                role: None,
            });
        }
        if !self.history.is_empty() {
            let names: Vec<&str> = self.history.iter().map(|(n, _)| n.as_str()).collect();
            notes.push(format!(
                "prev(x) is written x@prev, the value of x over the previous interval: {}",
                names.join(", ")
            ));
        }
        if !self.consts_in_formulas.is_empty() {
            notes.push(format!(
                "constants replaced by their values in formulas: {}",
                self.consts_in_formulas.join(", ")
            ));
        }
    }

    /// The symbol table and the `[[variables]]`.
    fn declare(&mut self, decls: &[Decl]) -> Vec<VarOut> {
        let mut vars = Vec::new();
        for d in decls {
            if let Some((_, first)) = self.syms.get(&d.name) {
                let (line, _) = self.lines.at(*first);
                self.raw.push((
                    d.at,
                    format!("{} is declared twice (first on line {line})", d.name),
                ));
                continue;
            }
            let sym = match &d.kind {
                DeclKind::Var(sort, role) => {
                    if RESERVED.contains(&d.name.as_str())
                        || !d
                            .name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"~!@$%^&*_-+=<>.?/".contains(&b))
                    {
                        self.raw.push((
                            d.at,
                            format!(
                                "{} is not usable as an SMT-LIB variable name (reserved, or \
                                 characters other than letters, digits and ~!@$%^&*_-+=<>.?/)",
                                d.name
                            ),
                        ));
                        continue;
                    }
                    vars.push(VarOut {
                        name: d.name.clone(),
                        sort: sort.name(),
                        role: *role,
                    });
                    Sym::Var(*sort)
                }
                DeclKind::Const(v) => Sym::Const(v.clone()),
            };
            self.syms.insert(d.name.clone(), (sym, d.at));
        }
        vars
    }

    /// The SMT-LIB condition of the quoted formula `tok` (a `Str` token).
    fn formula(&mut self, toks: &[Tok], tok: usize) -> Option<String> {
        let t = toks[tok];
        let base = t.start + 1;
        let inner = &self.text[base..t.end - 1];
        let r = (|| {
            let lexed = lex_formula(inner, base)?;
            let mut p = FormulaParser {
                toks: lexed,
                i: 0,
                end: base + inner.len(),
                depth: 0,
                syms: &self.syms,
                used_consts: Vec::new(),
                allow_prev: self.dense,
                in_prev: false,
                prev_vars: Vec::new(),
            };
            let n = p.formula()?;
            let (sort, _) = type_of(&n)?;
            if sort != Sort::Bool {
                return Err((
                    n.at,
                    format!(
                        "not a condition: an {} term where a formula is expected",
                        sort.name()
                    ),
                ));
            }
            let mut s = String::new();
            smt(&n, false, &mut s);
            let depth = crate::fretish::smt_depth(&s);
            if depth > crate::fretish::LOADER_DEPTH {
                return Err((
                    n.at,
                    format!(
                        "the formula nests {depth} levels deep once written in SMT-LIB, more than the {} vera's spec loader reads: split it, or use one operator for a long chain",
                        crate::fretish::LOADER_DEPTH
                    ),
                ));
            }
            Ok((s, p.used_consts, p.prev_vars))
        })();
        match r {
            Ok((s, used, prev)) => {
                for v in prev {
                    if !self.history.contains(&v) {
                        self.history.push(v);
                    }
                }
                for c in used {
                    let v = match &self.syms[&c].0 {
                        Sym::Const(ConstVal::Int(n, d)) | Sym::Const(ConstVal::Real(n, d)) => {
                            format!("{}{d}", if *n { "-" } else { "" })
                        }
                        Sym::Const(ConstVal::Bool(b)) => b.to_string(),
                        Sym::Var(_) => continue,
                    };
                    let entry = format!("{c} = {v}");
                    if !self.consts_in_formulas.contains(&entry) {
                        self.consts_in_formulas.push(entry);
                    }
                }
                Some(s)
            }
            Err(e) => {
                self.raw.push(e);
                None
            }
        }
    }

    /// `"<n> s"` for a number of time units, after checking it against the tick.
    fn seconds(&mut self, at: usize, n: &str) -> Option<String> {
        let Some(r) = ratio(n) else {
            self.raw
                .push((at, format!("bad duration \"{n}\": too many digits")));
            return None;
        };
        let tick = self.tick.as_ref()?;
        let (Some(whole), Some(per)) = (
            r.num.checked_mul(tick.secs.den),
            r.den.checked_mul(tick.secs.num),
        ) else {
            self.raw
                .push((at, format!("bad duration \"{n}\": too many digits")));
            return None;
        };
        if whole % per != 0 {
            self.raw.push((
                at,
                format!(
                    "the duration {} time units ({} s) is not a whole number of ticks (tick = {}); \
                     give a finer tick",
                    normal_decimal(n),
                    normal_decimal(n),
                    tick.text
                ),
            ));
            return None;
        }
        if whole / per > MAX_TICKS {
            self.raw.push((
                at,
                format!(
                    "the duration {} time units is more than {MAX_TICKS} ticks (tick = {})",
                    normal_decimal(n),
                    tick.text
                ),
            ));
            return None;
        }
        Some(format!("{} s", normal_decimal(n)))
    }

    /// Records that `s` is neither a number nor a name.
    fn bad_duration(&mut self, at: usize, s: &str) {
        self.raw.push((
            at,
            format!(
                "bad duration \"{s}\": a duration is a non-negative number of time units or \
                 the name of a constant"
            ),
        ));
    }

    /// The value of the constant `name` used as a duration, or `None` (with an error)
    /// when `name` is undeclared, a variable, or a constant that is not a non-negative
    /// number.
    fn constant_duration(&mut self, at: usize, name: &str) -> Option<String> {
        let problem = match self.syms.get(name) {
            Some((Sym::Const(ConstVal::Int(false, v) | ConstVal::Real(false, v)), _)) => {
                return Some(v.clone());
            }
            None => "not a number nor a declared constant".to_string(),
            Some((Sym::Var(_), _)) => {
                "a variable; a duration is a number or a constant".to_string()
            }
            Some((Sym::Const(c), _)) => {
                let shown = match c {
                    ConstVal::Int(_, v) | ConstVal::Real(_, v) => format!("-{v}"),
                    ConstVal::Bool(b) => b.to_string(),
                };
                format!("the constant is {shown}, not a non-negative number of time units")
            }
        };
        self.raw
            .push((at, format!("bad duration \"{name}\": {problem}")));
        None
    }

    fn duration(&mut self, d: &Dur) -> Option<String> {
        if let Some(u) = &d.unit {
            self.raw.push((
                d.at,
                format!(
                    "durations in {u} are not imported (Ultimate counts them in microseconds, \
                     and its time units are read as seconds here): write the duration in time \
                     units"
                ),
            ));
            return None;
        }
        match &d.val {
            DurVal::Num(n) => self.seconds(d.at, n),
            DurVal::Bad(s) => {
                self.bad_duration(d.at, s);
                None
            }
            DurVal::Name(name) => {
                let value = self.constant_duration(d.at, name)?;
                let s = self.seconds(d.at, &value)?;
                self.durations.insert(name.clone(), s);
                Some(name.clone())
            }
        }
    }

    /// Dense time: the unit of the durations (seconds, or microseconds when the file
    /// gives some in physical units) and, unless given, the tick: the greatest common
    /// divisor of every duration.
    fn dense_time(&mut self, reqs: &[Req], tick_given: bool) {
        self.micro = reqs.iter().flat_map(|r| &r.durs).any(|d| d.unit.is_some());
        if tick_given {
            return;
        }
        let mut g: Option<Ratio> = None;
        for d in reqs.iter().flat_map(|r| &r.durs) {
            let Some(v) = self.dense_value(d) else {
                continue;
            };
            if v.num == 0 {
                continue;
            }
            g = Some(match g {
                None => v,
                Some(a) => match ratio_gcd(a, v) {
                    Some(x) => x,
                    None => continue,
                },
            });
        }
        let g = g.unwrap_or(Ratio { num: 1, den: 1 });
        let unit = if self.micro { "us" } else { "s" };
        let secs = if self.micro {
            Ratio {
                num: g.num,
                den: g.den.saturating_mul(1_000_000),
            }
        } else {
            g
        };
        self.tick = Some(Tick {
            text: format!("{} {unit}", ratio_text(g)),
            secs,
        });
    }

    /// A duration's value in the dense unit (seconds, or microseconds), without
    /// reporting problems (the requirement's own reading reports them).
    fn dense_value(&self, d: &Dur) -> Option<Ratio> {
        let text = match &d.val {
            DurVal::Num(n) => n.clone(),
            DurVal::Name(name) => match self.syms.get(name) {
                Some((Sym::Const(ConstVal::Int(false, v) | ConstVal::Real(false, v)), _)) => {
                    v.clone()
                }
                _ => return None,
            },
            DurVal::Bad(_) => return None,
        };
        let r = ratio(&text)?;
        let mul: u128 = match d.unit.as_deref() {
            None => 1,
            Some("sec") => 1_000_000,
            Some("msec" | "ms") => 1_000,
            Some(_) => 1,
        };
        Some(Ratio {
            num: r.num.checked_mul(mul)?,
            den: r.den,
        })
    }

    /// Dense time: a duration as `"<value> s"` (or `us`), or the name of a constant (then
    /// a named duration), after checking it is a whole number of ticks.
    fn dense_duration(&mut self, d: &Dur) -> Option<String> {
        match &d.val {
            DurVal::Bad(s) => {
                self.bad_duration(d.at, s);
                return None;
            }
            DurVal::Name(name) => {
                self.constant_duration(d.at, name)?;
            }
            DurVal::Num(_) => {}
        }
        let Some(v) = self.dense_value(d) else {
            self.raw
                .push((d.at, "bad duration: too many digits".to_string()));
            return None;
        };
        let unit = if self.micro { "us" } else { "s" };
        let tick = self.tick.as_ref()?;
        // The value in seconds against the tick.
        let secs = if self.micro {
            Ratio {
                num: v.num,
                den: v.den.saturating_mul(1_000_000),
            }
        } else {
            v
        };
        let whole = secs
            .num
            .checked_mul(tick.secs.den)
            .zip(secs.den.checked_mul(tick.secs.num));
        match whole {
            Some((a, b)) if b != 0 && a % b == 0 => {}
            Some(_) => {
                self.raw.push((
                    d.at,
                    format!(
                        "the duration {} {unit} is not a whole number of ticks (tick = {}); give a \
                         finer tick, or none (the greatest common divisor of the durations)",
                        ratio_text(v),
                        tick.text
                    ),
                ));
                return None;
            }
            None => {
                self.raw
                    .push((d.at, "bad duration: too many digits".to_string()));
                return None;
            }
        }
        let text = format!("{} {unit}", ratio_text(v));
        match &d.val {
            DurVal::Name(name) => {
                self.durations.insert(name.clone(), text);
                Some(name.clone())
            }
            _ => Some(text),
        }
    }

    /// Dense time: the requirement as a pattern of Hanfor's catalog.
    fn dense_timed(
        &mut self,
        r: &Req,
        exprs: &[Option<String>],
        durs: &[Option<String>],
        scope: (Option<String>, Option<String>),
    ) -> Timed {
        let mut t = Timed {
            pattern: Some(kind_name(r.kind)),
            ..Timed::default()
        };
        match r.scope {
            Scope::Globally => {}
            Scope::Before(_) => t.scope_before = scope.0,
            Scope::After(_) => t.scope_after = scope.0,
            Scope::AfterUntil(..) => {
                t.scope_after = scope.0;
                t.scope_until = scope.1;
            }
            Scope::Between(..) => {
                t.scope_between = scope.0;
                t.scope_and = scope.1;
            }
        }
        let e = |i: usize| exprs.get(i).cloned().flatten();
        if r.kind == Kind::Response && exprs.len() == 1 {
            // "R eventually holds": the peer reads it as the response of `true` to R.
            t.r = e(0);
            t.s = Some("true".into());
        } else {
            t.r = e(0);
            t.s = e(1);
            t.t = e(2);
            t.u = e(3);
        }
        t.c1 = durs.first().cloned().flatten();
        t.c2 = durs.get(1).cloned().flatten();
        t
    }

    fn requirements(&mut self, toks: &[Tok], reqs: &[Req]) -> (Vec<ReqOut<Timed>>, Vec<String>) {
        let mut out = Vec::new();
        let mut notes = Vec::new();
        let mut between = Vec::new();
        let mut edges = Vec::new();
        let mut seen: HashMap<String, u32> = HashMap::new();
        for r in reqs {
            let before = self.raw.len();
            let f = |b: &mut Self, tok_index: usize| b.formula(toks, tok_index);
            let exprs: Vec<Option<String>> = r.exprs.iter().map(|&i| f(self, i)).collect();
            let scope = match r.scope {
                Scope::Globally => (None, None),
                Scope::Before(a) | Scope::After(a) => (f(self, a), None),
                Scope::AfterUntil(a, b) | Scope::Between(a, b) => (f(self, a), f(self, b)),
            };
            if !self.dense {
                if let Some(why) = discrete_refusal(r) {
                    self.raw.push((r.pattern_at, why));
                    continue;
                }
            }
            let durs: Vec<Option<String>> = if self.dense {
                r.durs.iter().map(|d| self.dense_duration(d)).collect()
            } else {
                r.durs.iter().map(|d| self.duration(d)).collect()
            };
            if self.raw.len() > before {
                continue;
            }
            let t = if self.dense {
                let t = self.dense_timed(r, &exprs, &durs, scope);
                if r.kind == Kind::ConstrainedChain
                    && (exprs.get(4) != exprs.get(1) || exprs.get(5) != exprs.get(2))
                {
                    let (line, _) = self.lines.at(r.at);
                    notes.push(format!(
                        "the requirement on line {line}: the formulas after \"between\" are not \
                         those of S and T; the peer reads S and T there"
                    ));
                }
                t
            } else {
                match discrete_timed(r, &exprs, &durs, scope) {
                    Some(t) => t,
                    // Refused by the parser.
                    None => continue,
                }
            };
            let id = self.requirement_id(r, &mut seen, &mut notes);
            if matches!(r.scope, Scope::Between(..)) && !self.dense {
                between.push(id.clone());
            }
            if t.when.is_some() {
                edges.push(id.clone());
            }
            out.push(ReqOut {
                id,
                text: r.text.clone(),
                timed: t,
            });
        }
        if !between.is_empty() {
            notes.push(format!(
                "{}: \"Between Q and R\" is read as \"After Q until R\" (scope_after + \
                 scope_until), which also constrains a last segment that R never closes; \
                 Ultimate's (Dwyer's) \"between\" does not",
                between.join(", ")
            ));
        }
        if !edges.is_empty() {
            notes.push(format!(
                "{}: \"once P becomes satisfied\" is read with `when`, which also fires at step \
                 0 when P holds there; Ultimate needs P to be false before",
                edges.join(", ")
            ));
        }
        (out, notes)
    }

    /// The id of requirement `r`: its own, or `line-N` without one, renamed `id~N` when
    /// it appears again (with a note each time).
    fn requirement_id(
        &self,
        r: &Req,
        seen: &mut HashMap<String, u32>,
        notes: &mut Vec<String>,
    ) -> String {
        let (line, _) = self.lines.at(r.at);
        let mut id = match &r.id {
            Some(id) => id.clone(),
            None => {
                notes.push(format!(
                    "the requirement on line {line} has no id; it is named line-{line}"
                ));
                format!("line-{line}")
            }
        };
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            let new = format!("{id}~{n}");
            notes.push(format!(
                "id {id} appears again on line {line}; renamed {new}"
            ));
            id = new;
        }
        id
    }
}

/// The discrete timed keys of requirement `r` from its formulas, durations and scope
/// formulas, pattern by pattern; `None` for a pattern the parser refuses.
fn discrete_timed(
    r: &Req,
    exprs: &[Option<String>],
    durs: &[Option<String>],
    (scope_a, scope_b): (Option<String>, Option<String>),
) -> Option<Timed> {
    let e = |i: usize| exprs[i].clone().unwrap_or_default();
    let d = |i: usize| durs[i].clone();
    let mut t = Timed::default();
    match r.scope {
        Scope::Globally => {}
        Scope::Before(_) => t.scope_before = scope_a.clone(),
        Scope::After(_) => t.scope_after = scope_a.clone(),
        Scope::AfterUntil(..) | Scope::Between(..) => {
            t.scope_after = scope_a.clone();
            t.scope_until = scope_b.clone();
        }
    }
    match r.kind {
        Kind::Universality => t.then = e(0),
        Kind::Absence => t.then = format!("(not {})", e(0)),
        Kind::Initialization => {
            t.initially = Some(true);
            t.then = e(0);
        }
        Kind::Persistence => {
            t.if_ = Some(e(0));
            t.then = e(0);
            t.until = Some(match r.scope {
                Scope::Before(_) => scope_a.unwrap_or_default(),
                Scope::AfterUntil(..) | Scope::Between(..) => scope_b.unwrap_or_default(),
                _ => "false".into(),
            });
        }
        kind => {
            // A trigger on the first formula (`if`: while it holds, `when`: once it
            // becomes true), perhaps held for the first duration, then a response with
            // perhaps a bound on the next duration.
            use Bound::{For, Unbounded, Within};
            use Trigger::{If, When};
            let (trigger, held, then, bound) = match kind {
                Kind::Invariance => (If, false, e(1), Unbounded),
                Kind::ResponseDelay => (If, false, e(1), Within),
                Kind::EdgeResponseDelay => (When, false, e(1), Within),
                Kind::InvarianceBoundL2 => (If, false, e(1), For),
                Kind::EdgeResponseBoundL2 => (When, false, e(1), For),
                Kind::DurationBoundL => (When, false, e(0), For),
                Kind::DurationBoundU => (If, true, "false".into(), Unbounded),
                Kind::ResponseBoundL1 | Kind::BndEntryCondition => (If, true, e(1), Unbounded),
                Kind::ResponseBoundL12 => (If, true, e(1), For),
                Kind::ResponseDelayBoundL1 => (If, true, e(1), Within),
                _ => return None,
            };
            match trigger {
                If => t.if_ = Some(e(0)),
                When => t.when = Some(e(0)),
            }
            if held {
                t.held_for = d(0);
            }
            t.then = then;
            let next = usize::from(held);
            match bound {
                Unbounded => {}
                Within => t.within = d(next),
                For => t.for_ = d(next),
            }
        }
    }
    Some(t)
}

/// How a discrete timed pattern's trigger reads its formula.
enum Trigger {
    /// `if`: while the formula holds.
    If,
    /// `when`: once the formula becomes true.
    When,
}

/// The bound a discrete timed pattern puts on its response.
enum Bound {
    Unbounded,
    /// `within`: the response comes within the duration.
    Within,
    /// `for`: the response holds for the duration.
    For,
}

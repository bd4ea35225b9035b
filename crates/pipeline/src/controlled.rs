//! Controlled English: requirements written in a structured style are read into a
//! [`Form`] deterministically, without a model.
//!
//! The accepted sentences are the EARS templates and two plain forms:
//!
//! | pattern | form |
//! |---|---|
//! | `While C, the S shall R.` / `During C, ...` / `In C, ...` | `while` C then R |
//! | `When C, the S shall R.` / `If C, [then] the S shall R.` / `For C, ...` | `if` C then R |
//! | `While C1, when C2, the S shall R.` | `while` C1 and C2 then R |
//! | `The S shall R when/while/if C.` (R one statement) | `if`/`while` C then R |
//! | `The S shall R.` | `always` R |
//! | `The S shall not/never R.` (one statement) | `never` R |
//! | `If C, then X is Y.` | `if` C then (X is Y) |
//!
//! Conditions and responses are statements about the schema's variables, joined by
//! "and" (`all`) or "or" (`any`), never both in one list; "either ... or", "both ... and",
//! "neither ... nor". A variable is named by its name (underscores as spaces), by its
//! description, or by some of its description's words ending in the description's head
//! noun ("the upper arterial limit" for "upper arterial pressure alarm limit"); a name or
//! whole description that matches exactly wins over partial matches. Relations: "is",
//! "is not", "equals", "is above", "exceeds", "is greater than", "is more than", "is
//! below", "is less than", "is at least", "is at most", "does not exceed", "rises above",
//! "falls below", "drops below", "is between A and B" (two conditions), "is in"; after
//! "shall": "be ...", "not be ...", "exceed", "not exceed", "stay/remain between ...".
//! Values: an enumeration's values (any case), numbers in the variable's unit ("400
//! mL/min"; a number in another unit, or without the unit of a variable that has one,
//! is refused, zero aside), "true"/"false", or another numeric variable. A Boolean
//! variable is stated by its description read as a clause (as the read-back reads it): "the
//! cassette door is open", "the alarm shall sound" (for "the alarm sounds"), "the left
//! low beam shall be on" (for "left low beam on"), with opposite predicates ("off"/"on",
//! "closed"/"open", "stopped"/"runs", ...) and negations ("is not open", "shall not run",
//! "no key is inserted"); "both X" and "neither X" name exactly two variables whose
//! descriptions match X ("both low beams").
//!
//! The rule is precision over recall: a parsed requirement is used without a model and
//! without review, so a sentence that could be read two ways is refused. Every word must
//! be accounted for (articles aside); a phrase that names two variables, a pronoun
//! ("it", "its", "they"), a word the patterns leave to a person ("unless", "until",
//! "only", "after", ...), a comma that cannot be placed, or a sentence with two readings
//! that give different formulas is [`NotParsed`], with the reason.

use crate::form::{Atom, Cond, Form, Operand, Relation, Trigger};
use crate::wording::{self, Reading, ARTICLES};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use reqs::spec::Variable;
use reqs::Spec;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

/// Why a sentence was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refusal {
    /// The sentence is not one of the accepted patterns (a comma that cannot be placed,
    /// several sentences, "and" and "or" in one list, ...).
    Structure,
    /// A phrase names no variable, or says of a variable something its description does
    /// not say.
    Unknown,
    /// A number in another unit than its variable's, or without the unit of a variable
    /// that has one.
    Unit,
    /// A word the patterns leave to a person ("unless", "until", "only", "after", ...).
    Unsupported,
    /// A pronoun: what it refers to is not in the sentence.
    Pronoun,
    /// A phrase names several variables, or the sentence reads in several ways.
    Ambiguous,
}

/// A sentence that was not parsed: which part, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct NotParsed {
    /// The kind of refusal.
    pub kind: Refusal,
    /// The words that did not parse.
    pub part: String,
    /// Why, for a person.
    pub reason: String,
}

/// Reads `text` into a form over `spec`'s schema, or says why it does not.
pub fn parse(spec: &Spec, text: &str) -> Result<Form, NotParsed> {
    let toks = tokenize(text)?;
    precheck(&toks)?;
    let parser = Parser::new(spec);
    let forms = parser.sentence(&toks).map_err(|f| NotParsed {
        kind: f.kind,
        part: f.part,
        reason: f.reason,
    })?;
    let mut seen: Vec<(String, Form)> = Vec::new();
    for f in forms {
        let s = f.smtlib(spec);
        if !seen.iter().any(|(t, _)| *t == s) {
            seen.push((s, f));
        }
    }
    if seen.len() == 1 {
        return Ok(seen.pop().expect("one").1);
    }
    Err(NotParsed {
        kind: Refusal::Ambiguous,
        part: text.trim().to_string(),
        reason: format!(
            "the sentence reads in {} ways: {}",
            seen.len(),
            seen.iter()
                .map(|(s, _)| s.as_str())
                .collect::<Vec<_>>()
                .join(" / ")
        ),
    })
}

// ---------------------------------------------------------------------------------------
// Tokens.

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Tok {
    /// A word: lower case, as written, and its stem.
    Word {
        low: String,
        text: String,
        stem: String,
    },
    Num {
        value: BigRational,
        text: String,
    },
    Comma,
}

impl Tok {
    fn word(&self) -> Option<&str> {
        match self {
            Tok::Word { low, .. } => Some(low),
            _ => None,
        }
    }
    fn is(&self, w: &str) -> bool {
        self.word() == Some(w)
    }
    fn synthetic(w: &str) -> Tok {
        Tok::written(w, w)
    }
    /// A word read as `low`, written as `text`.
    fn written(low: &str, text: &str) -> Tok {
        Tok::Word {
            low: low.into(),
            text: text.into(),
            stem: wording::stem(low),
        }
    }
    fn stem(&self) -> Option<&str> {
        match self {
            Tok::Word { stem, .. } => Some(stem),
            _ => None,
        }
    }
}

fn show(toks: &[Tok]) -> String {
    let mut out = String::new();
    for t in toks {
        match t {
            Tok::Comma => out.push(','),
            Tok::Word { text, .. } | Tok::Num { text, .. } => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(text);
            }
        }
    }
    out
}

fn fail(kind: Refusal, part: &[Tok], reason: impl Into<String>) -> Fail {
    Fail {
        kind,
        part: show(part),
        reason: reason.into(),
        progress: 0,
    }
}

fn refuse(kind: Refusal, part: &str, reason: impl Into<String>) -> NotParsed {
    NotParsed {
        kind,
        part: part.into(),
        reason: reason.into(),
    }
}

/// A decimal numeral (`12`, `-0.5`) as an exact number.
fn decimal(s: &str) -> Option<BigRational> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.is_empty()
        || !body.chars().all(|c| c.is_ascii_digit() || c == '.')
        || body.matches('.').count() > 1
        || body.starts_with('.')
        || body.ends_with('.')
    {
        return None;
    }
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits: BigInt = format!("{int}{frac}").parse().ok()?;
    let r = BigRational::new(digits, num_traits::pow(BigInt::from(10), frac.len()));
    Some(if neg { -r } else { r })
}

const CONTRACTIONS: &[(&str, &[&str])] = &[
    ("isn't", &["is", "not"]),
    ("aren't", &["are", "not"]),
    ("doesn't", &["does", "not"]),
    ("don't", &["do", "not"]),
    ("shan't", &["shall", "not"]),
    ("mustn't", &["must", "not"]),
];

fn tokenize(text: &str) -> Result<Vec<Tok>, NotParsed> {
    let t = text.trim();
    let t = t.strip_suffix('.').unwrap_or(t).trim_end();
    if t.is_empty() {
        return Err(refuse(Refusal::Structure, text, "the sentence is empty"));
    }
    let mut out = Vec::new();
    for chunk in t.split_whitespace() {
        let body = chunk.trim_end_matches(',');
        let commas = chunk.len() - body.len();
        if commas > 1 {
            return Err(refuse(
                Refusal::Structure,
                chunk,
                format!("`{chunk}`: two commas in a row"),
            ));
        }
        if body.ends_with('.') {
            return Err(refuse(
                Refusal::Structure,
                text.trim(),
                "several sentences: write one requirement per sentence",
            ));
        }
        if let Some(c) = body.chars().find(|c| ";:!?\"()[]{},".contains(*c)) {
            return Err(refuse(
                Refusal::Structure,
                body,
                format!("`{body}`: the patterns do not use `{c}`"),
            ));
        }
        let low = body.to_lowercase();
        if let Some((_, words)) = CONTRACTIONS.iter().find(|(c, _)| low == *c) {
            out.extend(words.iter().map(|w| Tok::synthetic(w)));
        } else if let Some(value) = decimal(body) {
            out.push(Tok::Num {
                value,
                text: body.into(),
            });
        } else if body.contains('-')
            && body
                .split('-')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphabetic()))
        {
            // "air-in-line" reads as the description's words do.
            for p in body.split('-') {
                out.push(Tok::written(&p.to_lowercase(), p));
            }
        } else if !body.is_empty() {
            out.push(Tok::written(&low, body));
        }
        if commas == 1 {
            out.push(Tok::Comma);
        }
    }
    if matches!(out.first(), Some(Tok::Comma)) || matches!(out.last(), Some(Tok::Comma)) {
        return Err(refuse(
            Refusal::Structure,
            text.trim(),
            "a comma at the start or end of the sentence",
        ));
    }
    if out.len() > 60 {
        return Err(refuse(
            Refusal::Structure,
            text.trim(),
            "longer than 60 words: split the requirement",
        ));
    }
    Ok(out)
}

const PRONOUNS: &[&str] = &[
    "it",
    "its",
    "they",
    "them",
    "their",
    "theirs",
    "itself",
    "themselves",
    "he",
    "she",
    "him",
    "his",
    "her",
    "hers",
    "this",
    "these",
    "those",
];

const UNSUPPORTED: &[(&str, &str)] = &[
    ("unless", "an exception"),
    ("except", "an exception"),
    ("otherwise", "an alternative"),
    ("until", "time"),
    ("after", "time"),
    ("before", "time"),
    ("once", "an event"),
    ("within", "a tolerance or a time"),
    ("only", "a restriction (only if / only when)"),
    ("may", "a permission"),
    ("should", "a recommendation"),
    ("can", "a possibility"),
    ("could", "a possibility"),
    ("might", "a possibility"),
    ("would", "a possibility"),
    ("will", "a prediction"),
    ("eventually", "time"),
    ("immediately", "time"),
    ("sometimes", "time"),
    ("usually", "a tendency"),
];

fn precheck(toks: &[Tok]) -> Result<(), NotParsed> {
    for t in toks {
        let Some(w) = t.word() else { continue };
        if PRONOUNS.contains(&w) {
            return Err(refuse(
                Refusal::Pronoun,
                w,
                format!("`{w}` refers to something the sentence does not name: name it"),
            ));
        }
        if let Some((_, what)) = UNSUPPORTED.iter().find(|(u, _)| *u == w) {
            return Err(refuse(
                Refusal::Unsupported,
                w,
                format!("`{w}` states {what}, which these patterns do not read: it needs a person or a model"),
            ));
        }
    }
    let modals = toks
        .iter()
        .filter(|t| t.is("shall") || t.is("must"))
        .count();
    if modals == 0 && !toks.iter().any(|t| t.is("then")) {
        return Err(refuse(
            Refusal::Structure,
            &show(toks),
            "no `shall`: a requirement says what shall hold",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Failures and alternatives.

#[derive(Debug, Clone)]
struct Fail {
    kind: Refusal,
    part: String,
    reason: String,
    /// How many tokens of the sentence this reading accounted for before it failed, to
    /// report the failure of the reading that got furthest; among those, the most
    /// specific kind, then the shortest part.
    progress: usize,
}

impl Fail {
    fn rank(&self) -> (usize, u8, std::cmp::Reverse<usize>) {
        let k = match self.kind {
            Refusal::Ambiguous => 6,
            Refusal::Unit => 5,
            Refusal::Pronoun | Refusal::Unsupported => 4,
            Refusal::Unknown => 2,
            Refusal::Structure => 1,
        };
        (self.progress, k, std::cmp::Reverse(self.part.len()))
    }
    /// The failure of a part of a reading that accounted for `offset` more tokens
    /// elsewhere.
    fn shift(mut self, offset: usize) -> Fail {
        self.progress += offset;
        self
    }
}

type R<T> = Result<Vec<T>, Fail>;

/// Alternative readings of one part, and the most telling failure among those that did
/// not read. Readings of a phrase that names several variables are alternatives like
/// any other: only the complete readings of the sentence are compared, at the end.
struct Alts<T> {
    ok: Vec<T>,
    fail: Option<Fail>,
}

impl<T: PartialEq> Alts<T> {
    fn new() -> Alts<T> {
        Alts {
            ok: Vec::new(),
            fail: None,
        }
    }
    fn fail(&mut self, f: Fail) {
        match &self.fail {
            Some(g) if g.rank() >= f.rank() => {}
            _ => self.fail = Some(f),
        }
    }
    fn add(&mut self, r: R<T>) {
        match r {
            Ok(v) => {
                for x in v {
                    if !self.ok.contains(&x) {
                        self.ok.push(x);
                    }
                }
            }
            Err(f) => self.fail(f),
        }
    }
    fn finish(self, none: impl FnOnce() -> Fail) -> R<T> {
        if !self.ok.is_empty() {
            return Ok(self.ok);
        }
        Err(self.fail.unwrap_or_else(none))
    }
}

// ---------------------------------------------------------------------------------------
// The schema's words.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    /// Some of the words, ending in the head noun, but a qualifier left out: never
    /// chosen, but a rival of the other readings.
    Loose,
    /// Some of the words, ending in the head noun, every qualifier kept.
    Subset,
    /// The name or the whole description.
    Exact,
}

/// Words a noun phrase is matched against: exact only when `heads` is empty.
#[derive(Debug, Clone)]
struct Target {
    words: Vec<String>,
    heads: Vec<String>,
    /// The words before the head, where a qualifier may not be left out.
    core: Vec<String>,
    /// `words` as a set.
    set: BTreeSet<String>,
}

impl Target {
    fn new(words: Vec<String>, heads: Vec<String>, core: Vec<String>) -> Target {
        Target {
            set: words.iter().cloned().collect(),
            words,
            heads,
            core,
        }
    }
}

/// Words that set a variable apart from its neighbours ("upper" limit, "set" flow,
/// "maximum" rate, "left" beam) or deny ("not"): a phrase that leaves one of them out of
/// a description's core does not name the variable (except "both X" / "neither X",
/// which name two by what they share). "Current", "actual" and "measured" are not among
/// them: "the temperature" is the measured one, "the set temperature" the other.
const QUALIFIERS: &[&str] = &[
    "maximum",
    "minimum",
    "max",
    "min",
    "upper",
    "lower",
    "high",
    "low",
    "left",
    "right",
    "front",
    "rear",
    "first",
    "second",
    "primary",
    "secondary",
    "set",
    "target",
    "requested",
    "desired",
    "nominal",
    "previous",
    "last",
    "next",
    "total",
    "average",
    "mean",
    "peak",
    "initial",
    "final",
    "inner",
    "outer",
    "inlet",
    "outlet",
    "input",
    "output",
    "not",
    "no",
    "non",
    "without",
    "never",
];

impl Target {
    /// How `np` (stems, articles left out) names this target: the same words, or some of
    /// them ending in a head noun (keeping every qualifier of the core, or not).
    fn matches(&self, np: &[String]) -> Option<Strength> {
        if np.is_empty() {
            return None;
        }
        if np == self.words.as_slice() {
            return Some(Strength::Exact);
        }
        let last = np.last().expect("not empty");
        if !self.heads.contains(last) || !np.iter().all(|w| self.set.contains(w)) {
            return None;
        }
        let kept = |w: &String| !qualifier_stems().contains(w) || np.contains(w);
        Some(if self.core.iter().all(kept) {
            Strength::Subset
        } else {
            Strength::Loose
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Bool,
    Enum(Vec<String>),
    Int,
    Real,
}

struct VarInfo<'s> {
    var: &'s Variable,
    kind: Kind,
    /// The variable as a whole: its name (exact only) and its description.
    nouns: Vec<Target>,
    /// A Boolean's clause readings: the subject, and the predicate as stems (a verb
    /// first, then its object; or the copula's predicate words).
    readings: Vec<(Target, Vec<String>)>,
}

fn stems_of(words: &[String]) -> Vec<String> {
    wording::stems(&words.join(" "))
}

impl<'s> VarInfo<'s> {
    fn new(spec: &'s Spec, var: &'s Variable) -> Option<VarInfo<'s>> {
        let kind = match &var.sort {
            logic::Sort::Bool => Kind::Bool,
            logic::Sort::Int => Kind::Int,
            logic::Sort::Real => Kind::Real,
            logic::Sort::Enum(e) => Kind::Enum(
                spec.enums
                    .iter()
                    .find(|(n, _)| n == e)
                    .map(|(_, vs)| vs.iter().map(|v| v.to_string()).collect())?,
            ),
        };
        let name = wording::name_words(var);
        let mut nouns = vec![Target::new(wording::stems(&name), Vec::new(), Vec::new())];
        let desc = var
            .description
            .as_deref()
            .map(wording::plain_description)
            .filter(|d| !d.is_empty());
        if let Some(d) = desc {
            nouns.push(Target::new(
                wording::stems(d),
                wording::heads(d),
                wording::core_stems(d),
            ));
        }
        let mut readings = Vec::new();
        if kind == Kind::Bool {
            // The description's reading; the name's only when the description has none
            // (a name can say less than, or the opposite of, its description).
            let read = desc
                .and_then(wording::reading)
                .or_else(|| wording::reading(&name));
            if let Some(r) = read {
                let subject = stems_of(r.subject());
                let head = subject.last().cloned().unwrap_or_default();
                let predicate = match &r {
                    Reading::Copula { predicate, .. } => stems_of(predicate),
                    Reading::Verb { verb, rest, .. } => {
                        let mut p = vec![wording::stem(verb)];
                        p.extend(stems_of(rest));
                        p
                    }
                };
                if !predicate.is_empty() {
                    readings.push((Target::new(subject.clone(), vec![head], subject), predicate));
                }
            }
        }
        Some(VarInfo {
            var,
            kind,
            nouns,
            readings,
        })
    }

    fn numeric(&self) -> bool {
        matches!(self.kind, Kind::Int | Kind::Real)
    }

    fn noun_match(&self, np: &[String]) -> Option<Strength> {
        self.nouns.iter().filter_map(|t| t.matches(np)).max()
    }

    fn described(&self) -> String {
        match &self.var.description {
            Some(d) => format!("`{}` ({d})", self.var.name),
            None => format!("`{}`", self.var.name),
        }
    }
}

/// Units written another way: (unit, words for it).
const UNIT_WORDS: &[(&str, &[&str])] = &[
    ("min", &["min", "mins", "minute", "minutes"]),
    ("s", &["s", "sec", "secs", "second", "seconds"]),
    ("ms", &["ms", "millisecond", "milliseconds"]),
    ("h", &["h", "hr", "hrs", "hour", "hours"]),
    ("degC", &["degC", "°C"]),
    ("deg", &["deg", "degree", "degrees", "°"]),
    ("V", &["V", "volt", "volts"]),
    ("%", &["%", "percent"]),
];

const COMMON_UNITS: &[&str] = &[
    "mV", "A", "mA", "W", "kW", "Hz", "kHz", "m", "cm", "mm", "km", "kg", "g", "mg", "L", "mL",
    "l", "ml", "lx", "rpm", "Pa", "kPa", "bar", "mmHg", "K", "degF", "°F", "N", "J", "dB",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Between,
    In,
}

/// Relations after the subject (or after "shall"), with `is`/`are` written as `be`.
const RELATIONS: &[(&[&str], Rel)] = &[
    (&["be"], Rel::Eq),
    (&["be", "equal", "to"], Rel::Eq),
    (&["equal"], Rel::Eq),
    (&["differ", "from"], Rel::Ne),
    (&["be", "above"], Rel::Gt),
    (&["be", "over"], Rel::Gt),
    (&["be", "greater", "than"], Rel::Gt),
    (&["be", "more", "than"], Rel::Gt),
    (&["be", "higher", "than"], Rel::Gt),
    (&["exceed"], Rel::Gt),
    (&["rise", "above"], Rel::Gt),
    (&["be", "below"], Rel::Lt),
    (&["be", "under"], Rel::Lt),
    (&["be", "less", "than"], Rel::Lt),
    (&["be", "lower", "than"], Rel::Lt),
    (&["fall", "below"], Rel::Lt),
    (&["drop", "below"], Rel::Lt),
    (&["be", "at", "least"], Rel::Ge),
    (&["be", "no", "less", "than"], Rel::Ge),
    (&["be", "greater", "than", "or", "equal", "to"], Rel::Ge),
    (&["be", "at", "most"], Rel::Le),
    (&["be", "no", "more", "than"], Rel::Le),
    (&["be", "less", "than", "or", "equal", "to"], Rel::Le),
    (&["be", "between"], Rel::Between),
    (&["be", "in"], Rel::In),
];

/// Words that start a sentence with its condition.
const LEADS: &[&str] = &["if", "when", "whenever", "while", "during", "in", "for"];

/// Words that start a relation without a verb ("blood flows above 400 mL/min").
const BARE_RELATIONS: &[&str] = &[
    "above", "over", "below", "under", "between", "at", "greater", "more", "less", "higher",
    "lower",
];

fn starts_with_stems(toks: &[Tok], stems: &[String]) -> bool {
    toks.len() >= stems.len()
        && toks
            .iter()
            .zip(stems)
            .all(|(t, w)| t.stem() == Some(w.as_str()))
}

/// [`RELATIONS`] with its words as stems.
fn relation_stems() -> &'static [(Vec<String>, Rel)] {
    static STEMS: std::sync::OnceLock<Vec<(Vec<String>, Rel)>> = std::sync::OnceLock::new();
    STEMS.get_or_init(|| {
        RELATIONS
            .iter()
            .map(|(ws, r)| (ws.iter().map(|w| wording::stem(w)).collect(), *r))
            .collect()
    })
}

/// [`QUALIFIERS`] as stems.
fn qualifier_stems() -> &'static BTreeSet<String> {
    static STEMS: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    STEMS.get_or_init(|| QUALIFIERS.iter().map(|q| wording::stem(q)).collect())
}

fn relation(rel: Rel) -> Relation {
    match rel {
        Rel::Eq | Rel::In => Relation::Eq,
        Rel::Ne => Relation::Ne,
        Rel::Lt => Relation::Lt,
        Rel::Le => Relation::Le,
        Rel::Gt => Relation::Gt,
        Rel::Ge => Relation::Ge,
        Rel::Between => unreachable!("two atoms"),
    }
}

/// The opposite statement of an atom.
fn negate(a: &Atom) -> Atom {
    let (relation, value) = match (&a.value, a.relation) {
        (Operand::Bool(b), r) => (r, Operand::Bool(!b)),
        (v, r) => (
            match r {
                Relation::Is => Relation::IsNot,
                Relation::IsNot => Relation::Is,
                Relation::Eq => Relation::Ne,
                Relation::Ne => Relation::Eq,
                Relation::Lt => Relation::Ge,
                Relation::Ge => Relation::Lt,
                Relation::Le => Relation::Gt,
                Relation::Gt => Relation::Le,
            },
            v.clone(),
        ),
    };
    Atom {
        variable: a.variable.clone(),
        relation,
        value,
    }
}

/// Conditions joined one way.
#[derive(Debug, Clone, PartialEq)]
struct Conds {
    atoms: Vec<Atom>,
    any: bool,
}

impl Conds {
    fn cond(&self) -> Cond {
        match (self.atoms.as_slice(), self.any) {
            ([one], _) => Cond::Atom(one.clone()),
            (_, true) => Cond::Any(self.atoms.clone()),
            _ => Cond::All(self.atoms.clone()),
        }
    }
}

/// One statement of a response.
#[derive(Debug, Clone, PartialEq)]
struct Item {
    atoms: Vec<Atom>,
    /// The statement denied, for a plain "the S shall not R" (one atom).
    never: Option<Atom>,
    /// "shall be ..." without a negation: a following statement may leave out "shall be".
    be_positive: bool,
    /// This statement left out "shall be".
    gapped: bool,
}

/// A whole response.
#[derive(Debug, Clone, PartialEq)]
struct Resp {
    conds: Conds,
    never: Option<Atom>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    And,
    Or,
    Nor,
}

/// A way to cut a list: the items (token ranges) and the separators between them.
type Cut = (Vec<(usize, usize)>, Vec<Sep>);

/// A cut that makes a list: the items (token ranges) and the word joining them (none
/// for one item).
type List = (Vec<(usize, usize)>, Option<Join>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    Comma,
    Word(Join),
    CommaWord(Join),
}

// ---------------------------------------------------------------------------------------
// The parser.

/// Readings of parts already read, by their words.
type Memo<K, T> = RefCell<HashMap<K, R<T>>>;

struct Parser<'s> {
    vars: Vec<VarInfo<'s>>,
    /// Statements of conditions already read (a sentence is cut many ways, and the same
    /// words come back).
    clauses: Memo<(Vec<Tok>, bool), Vec<Atom>>,
    /// Statements of responses already read.
    items: Memo<(Vec<Tok>, bool, bool), Item>,
    /// Every unit of the schema, to tell a unit from another word after a number.
    units: Vec<String>,
}

/// What a subject names ([`Parser::named_by`]).
struct Named<'v> {
    /// Each variable named, how strongly, and what the sentence says of it.
    hits: Vec<(Strength, &'v VarInfo<'v>, Vec<Atom>)>,
    /// The names of every variable the subject could name.
    named: Vec<String>,
    /// The strongest match among them.
    strongest: Option<Strength>,
    /// The worst refusal met while reading what is said of one.
    worst: Option<Fail>,
}

enum SubjectKind {
    Plain,
    /// "both X" / "neither X": exactly two variables.
    Group {
        neither: bool,
    },
    /// "no X": the statement denied.
    No,
}

impl<'s> Parser<'s> {
    fn new(spec: &'s Spec) -> Parser<'s> {
        Parser {
            clauses: RefCell::default(),
            items: RefCell::default(),
            vars: spec
                .variables
                .iter()
                .filter_map(|v| VarInfo::new(spec, v))
                .collect(),
            units: spec
                .variables
                .iter()
                .filter_map(|v| v.unit.clone())
                .collect(),
        }
    }

    // --- sentences -----------------------------------------------------------------

    fn sentence(&self, toks: &[Tok]) -> R<Form> {
        let mut alts = Alts::new();
        let lead = toks
            .first()
            .and_then(Tok::word)
            .is_some_and(|w| LEADS.contains(&w));
        if lead {
            alts.add(self.leading(toks, true));
        } else {
            alts.add(self.trailing(toks));
            alts.add(self.plain(toks));
        }
        alts.finish(|| {
            fail(
                Refusal::Structure,
                toks,
                "not one of the patterns (While/When/If ..., the ... shall ...; The ... shall ...)",
            )
        })
    }

    /// `While C, ...`, `When C, ...`, `If C, then ...`, `During C ...`, and
    /// `While C1, when C2, ...` (with `nested`).
    fn leading(&self, toks: &[Tok], nested: bool) -> R<Form> {
        let Some(first) = toks.first().and_then(Tok::word) else {
            return Ok(Vec::new());
        };
        let (word, nominal, then_ok) = match first {
            "if" | "when" | "whenever" => (Trigger::If, false, true),
            "while" => (Trigger::While, false, false),
            "during" | "in" => (Trigger::While, true, false),
            "for" => (Trigger::If, true, false),
            _ => return Ok(Vec::new()),
        };
        let mut alts = Alts::new();
        for k in 2..toks.len() {
            let cond_toks = &toks[1..k];
            if matches!(cond_toks.last(), Some(Tok::Comma)) {
                continue;
            }
            let mut r = &toks[k..];
            let comma = matches!(r.first(), Some(Tok::Comma));
            if comma {
                r = &r[1..];
            }
            let then = then_ok && r.first().is_some_and(|t| t.is("then"));
            if then {
                r = &r[1..];
            }
            if r.is_empty() {
                continue;
            }
            let rest_at = toks.len() - r.len();
            if nested
                && word == Trigger::While
                && comma
                && r.first()
                    .is_some_and(|t| t.is("when") || t.is("if") || t.is("whenever"))
            {
                let outer = self.condition(cond_toks, nominal);
                let inner = self.leading(r, false);
                match (outer, inner) {
                    (Ok(c1), Ok(forms)) => {
                        let mut out = Vec::new();
                        for c in &c1 {
                            for f in &forms {
                                let Form::If {
                                    condition, then, ..
                                } = f
                                else {
                                    continue;
                                };
                                if c.any || matches!(condition, Cond::Any(_)) {
                                    alts.fail(fail(
                                        Refusal::Structure,
                                        toks,
                                        "\"while\" and \"when\" conditions with \"or\" cannot be joined into one form",
                                    ));
                                    continue;
                                }
                                let mut atoms = c.atoms.clone();
                                atoms.extend(condition.atoms().iter().cloned());
                                out.push(Form::If {
                                    word: Trigger::While,
                                    condition: Cond::All(atoms),
                                    then: then.clone(),
                                    otherwise: None,
                                });
                            }
                        }
                        alts.add(Ok(out));
                    }
                    (Err(f), _) => alts.fail(f.shift(1)),
                    (_, Err(f)) => alts.fail(f.shift(rest_at)),
                }
                continue;
            }
            match (self.condition(cond_toks, nominal), self.response(r, then)) {
                (Ok(cs), Ok(rs)) => {
                    let mut out = Vec::new();
                    for c in &cs {
                        for resp in &rs {
                            out.push(Form::If {
                                word,
                                condition: c.cond(),
                                then: resp.conds.cond(),
                                otherwise: None,
                            });
                        }
                    }
                    alts.add(Ok(out));
                }
                (Err(f), Ok(_)) => alts.fail(f.shift(1 + r.len())),
                (Err(f), Err(g)) => alts.fail(f.shift(1 + g.progress)),
                (_, Err(g)) => alts.fail(g.shift(rest_at)),
            }
        }
        alts.finish(|| fail(Refusal::Structure, toks, "no condition and response found"))
    }

    /// `The S shall R when/while/if C.` with R one statement (a response of several
    /// statements before a condition is refused: which of them does it govern?).
    fn trailing(&self, toks: &[Tok]) -> R<Form> {
        let at: Vec<usize> = (1..toks.len())
            .filter(|&i| {
                toks[i].is("when")
                    || toks[i].is("whenever")
                    || toks[i].is("while")
                    || toks[i].is("if")
            })
            .collect();
        let [k] = at.as_slice() else {
            if at.len() > 1 {
                return Err(fail(
                    Refusal::Structure,
                    toks,
                    "several conditions after the response",
                ));
            }
            return Ok(Vec::new());
        };
        let k = *k;
        let mut resp = &toks[..k];
        if matches!(resp.last(), Some(Tok::Comma)) {
            resp = &resp[..resp.len() - 1];
        }
        let cond = &toks[k + 1..];
        if cond.is_empty() || resp.is_empty() {
            return Ok(Vec::new());
        }
        let word = if toks[k].is("while") {
            Trigger::While
        } else {
            Trigger::If
        };
        let items = match self.response_item(resp, false, false) {
            Ok(items) => items,
            Err(f) => {
                if self.response(resp, false).is_ok() {
                    return Err(fail(
                        Refusal::Ambiguous,
                        toks,
                        "a condition after a response of several statements: it is not clear which of them it governs; put the condition first",
                    )
                    .shift(toks.len()));
                }
                return Err(f);
            }
        };
        let conds = self.condition(cond, false).map_err(|f| f.shift(k + 1))?;
        let mut out = Vec::new();
        for item in &items {
            let then = Conds {
                atoms: item.atoms.clone(),
                any: false,
            };
            for c in &conds {
                out.push(Form::If {
                    word,
                    condition: c.cond(),
                    then: then.cond(),
                    otherwise: None,
                });
            }
        }
        Ok(out)
    }

    /// `The S shall R.` / `The S shall not R.`
    fn plain(&self, toks: &[Tok]) -> R<Form> {
        let rs = self.response(toks, false)?;
        Ok(rs
            .into_iter()
            .map(|r| match r.never {
                Some(a) => Form::Never(Cond::Atom(a)),
                None => Form::Always(r.conds.cond()),
            })
            .collect())
    }

    // --- lists ---------------------------------------------------------------------

    /// Every way to cut `toks` into items at commas and "and"/"or"/"nor".
    fn cuts(toks: &[Tok]) -> Vec<Cut> {
        fn go(
            toks: &[Tok],
            start: usize,
            items: &mut Vec<(usize, usize)>,
            seps: &mut Vec<Sep>,
            out: &mut Vec<Cut>,
        ) {
            items.push((start, toks.len()));
            out.push((items.clone(), seps.clone()));
            items.pop();
            let join = |t: &Tok| match t.word() {
                Some("and") => Some(Join::And),
                Some("or") => Some(Join::Or),
                Some("nor") => Some(Join::Nor),
                _ => None,
            };
            for e in start + 1..toks.len() {
                let mut options: Vec<(Sep, usize)> = Vec::new();
                match &toks[e] {
                    Tok::Comma => {
                        options.push((Sep::Comma, 1));
                        if let Some(j) = toks.get(e + 1).and_then(join) {
                            options.push((Sep::CommaWord(j), 2));
                        }
                    }
                    t => {
                        if let Some(j) = join(t) {
                            options.push((Sep::Word(j), 1));
                        }
                    }
                }
                for (sep, len) in options {
                    if e + len >= toks.len() {
                        continue;
                    }
                    items.push((start, e));
                    seps.push(sep);
                    go(toks, e + len, items, seps, out);
                    items.pop();
                    seps.pop();
                }
            }
        }
        let mut out = Vec::new();
        go(toks, 0, &mut Vec::new(), &mut Vec::new(), &mut out);
        out
    }

    /// The join of a cut, when its separators make a list: "A and B", "A, B and C",
    /// "A, B, and C" (one word throughout); "A, and B" when `comma_before_two` (two
    /// statements of a response).
    fn list_join(seps: &[Sep], comma_before_two: bool) -> Option<Option<Join>> {
        if seps.is_empty() {
            return Some(None);
        }
        let last = *seps.last().expect("not empty");
        let word = match last {
            Sep::Word(j) => j,
            Sep::CommaWord(j) if seps.len() >= 2 || comma_before_two => j,
            _ => return None,
        };
        for s in &seps[..seps.len() - 1] {
            match s {
                Sep::Comma => {}
                Sep::Word(j) if *j == word => {}
                _ => return None,
            }
        }
        Some(Some(word))
    }

    /// The cuts of `toks` that make a list (see [`Self::list_join`]), with their join; a
    /// list with commas has three items or more.
    fn lists(toks: &[Tok], comma_before_two: bool) -> Vec<List> {
        Self::cuts(toks)
            .into_iter()
            .filter_map(|(items, seps)| {
                let join = Self::list_join(&seps, comma_before_two)?;
                let short = join.is_some() && seps.contains(&Sep::Comma) && items.len() < 3;
                (!short).then_some((items, join))
            })
            .collect()
    }

    /// Every choice of one reading per item of a list: `items` are ranges of
    /// `toks[skip..]`, each read by `read` (with its place in the list). The failure is
    /// that of the first item that does not read (counting the tokens before it), or too
    /// many readings.
    fn readings<T: Clone>(
        toks: &[Tok],
        skip: usize,
        items: &[(usize, usize)],
        mut read: impl FnMut(usize, &[Tok]) -> R<T>,
    ) -> Result<Vec<Vec<T>>, Fail> {
        let body = &toks[skip..];
        let mut parts: Vec<Vec<T>> = Vec::new();
        for (i, (a, b)) in items.iter().enumerate() {
            parts.push(read(i, &body[*a..*b]).map_err(|f| f.shift(skip + a))?);
        }
        product(&parts)
            .ok_or_else(|| fail(Refusal::Ambiguous, toks, "too many readings to compare"))
    }

    /// Refuses a condition or response (`what`) with more than ten commas and joining
    /// words.
    fn not_too_long(toks: &[Tok], what: &str) -> Result<(), Fail> {
        let separators = toks
            .iter()
            .filter(|t| matches!(t, Tok::Comma) || t.is("and") || t.is("or") || t.is("nor"))
            .count();
        if separators > 10 {
            return Err(fail(
                Refusal::Structure,
                toks,
                format!(
                    "more than ten commas and joining words in one {what}: split the requirement"
                ),
            ));
        }
        Ok(())
    }

    /// The failure of a condition or response that no cut makes a list of.
    fn not_a_list(toks: &[Tok]) -> Fail {
        fail(
            Refusal::Structure,
            toks,
            "the commas and joining words do not make a list",
        )
    }

    /// A condition: statements joined by "and" or "or" (with "either", "both",
    /// "neither" in front).
    fn condition(&self, toks: &[Tok], nominal: bool) -> R<Conds> {
        if toks.is_empty() {
            return Err(fail(Refusal::Structure, toks, "an empty condition"));
        }
        Self::not_too_long(toks, "condition")?;
        let mut alts = Alts::new();
        let prefix = toks[0].word().and_then(|w| match w {
            "either" => Some(Join::Or),
            "both" => Some(Join::And),
            "neither" => Some(Join::Nor),
            _ => None,
        });
        let mut starts = vec![(0usize, None)];
        if let Some(p) = prefix {
            starts.push((1, Some(p)));
        }
        for (skip, marker) in starts {
            let body = &toks[skip..];
            if body.is_empty() {
                continue;
            }
            for (items, join) in Self::lists(body, false) {
                match (marker, join) {
                    (None, Some(Join::Nor)) => continue,
                    (Some(m), j) if Some(m) != j => continue,
                    (Some(Join::And), _) if items.len() != 2 => continue,
                    _ => {}
                }
                let combos = match Self::readings(toks, skip, &items, |_, item| {
                    self.cond_clause(item, nominal)
                }) {
                    Ok(combos) => combos,
                    Err(f) => {
                        alts.fail(f);
                        continue;
                    }
                };
                for combo in combos {
                    match join {
                        None | Some(Join::And) => {
                            let atoms: Vec<Atom> = combo.into_iter().flatten().collect();
                            if let Some(v) = two_values(&atoms) {
                                alts.fail(
                                    fail(
                                        Refusal::Ambiguous,
                                        toks,
                                        format!(
                                            "`{}` asks `{v}` to have two values at once; if either will do, join them with \"or\"",
                                            show(toks)
                                        ),
                                    )
                                    .shift(toks.len()),
                                );
                                continue;
                            }
                            alts.add(Ok(vec![Conds { atoms, any: false }]))
                        }
                        Some(j) => {
                            if combo.iter().any(|c| c.len() != 1) {
                                alts.fail(fail(
                                    Refusal::Structure,
                                    toks,
                                    "an \"or\"/\"nor\" of statements that have several parts (a range, \"both\") cannot be written as a form",
                                ).shift(toks.len()));
                                continue;
                            }
                            let atoms: Vec<Atom> = combo.into_iter().flatten().collect();
                            alts.add(Ok(vec![if j == Join::Nor {
                                Conds {
                                    atoms: atoms.iter().map(negate).collect(),
                                    any: false,
                                }
                            } else {
                                Conds { atoms, any: true }
                            }]));
                        }
                    }
                }
            }
        }
        alts.finish(|| Self::not_a_list(toks))
    }

    /// A response: statements with "shall", joined by "and" or "or"; after "then", also
    /// statements without "shall".
    fn response(&self, toks: &[Tok], indicative: bool) -> R<Resp> {
        Self::not_too_long(toks, "response")?;
        let mut alts = Alts::new();
        for (items, join) in Self::lists(toks, true) {
            if join == Some(Join::Nor) {
                continue;
            }
            let combos = match Self::readings(toks, 0, &items, |i, item| {
                self.response_item(item, i > 0, indicative)
            }) {
                Ok(combos) => combos,
                Err(f) => {
                    alts.fail(f);
                    continue;
                }
            };
            for combo in combos {
                // A statement without "shall be" follows one with it.
                if combo
                    .iter()
                    .enumerate()
                    .any(|(i, it)| it.gapped && (i == 0 || !combo[i - 1].be_positive))
                {
                    continue;
                }
                let single = combo.len() == 1;
                let never = if single { combo[0].never.clone() } else { None };
                match join {
                    None | Some(Join::And) => alts.add(Ok(vec![Resp {
                        conds: Conds {
                            atoms: combo.into_iter().flat_map(|i| i.atoms).collect(),
                            any: false,
                        },
                        never,
                    }])),
                    Some(_) => {
                        if combo.iter().any(|c| c.atoms.len() != 1) {
                            alts.fail(fail(
                                Refusal::Structure,
                                toks,
                                "an \"or\" of statements that have several parts cannot be written as a form",
                            ).shift(toks.len()));
                            continue;
                        }
                        alts.add(Ok(vec![Resp {
                            conds: Conds {
                                atoms: combo.into_iter().flat_map(|i| i.atoms).collect(),
                                any: true,
                            },
                            never: None,
                        }]));
                    }
                }
            }
        }
        alts.finish(|| Self::not_a_list(toks))
    }

    // --- statements ----------------------------------------------------------------

    /// One statement of a response: `S shall VP`, `S VP` after a statement with "shall
    /// be" (the words left out), or (after "then") a statement without "shall".
    fn response_item(&self, toks: &[Tok], may_gap: bool, indicative: bool) -> R<Item> {
        let key = (toks.to_vec(), may_gap, indicative);
        if let Some(r) = self.items.borrow().get(&key) {
            return r.clone();
        }
        let r = self.response_item_uncached(toks, may_gap, indicative);
        self.items.borrow_mut().insert(key, r.clone());
        r
    }

    fn response_item_uncached(&self, toks: &[Tok], may_gap: bool, indicative: bool) -> R<Item> {
        let modals: Vec<usize> = (0..toks.len())
            .filter(|&i| toks[i].is("shall") || toks[i].is("must"))
            .collect();
        match modals.as_slice() {
            [s] => self.shall(&toks[..*s], &toks[s + 1..], false),
            [] => {
                let mut alts = Alts::new();
                if may_gap {
                    for p in 1..toks.len() {
                        let mut synth = toks[..p].to_vec();
                        synth.push(Tok::synthetic("shall"));
                        synth.push(Tok::synthetic("be"));
                        synth.extend_from_slice(&toks[p..]);
                        alts.add(self.shall(&synth[..p], &synth[p + 1..], true));
                    }
                }
                if indicative {
                    alts.add(self.cond_clause(toks, false).map(|v| {
                        v.into_iter()
                            .map(|atoms| Item {
                                atoms,
                                never: None,
                                be_positive: false,
                                gapped: false,
                            })
                            .collect()
                    }));
                }
                alts.finish(|| {
                    fail(
                        Refusal::Structure,
                        toks,
                        format!("`{}` has no `shall`", show(toks)),
                    )
                })
            }
            _ => Err(fail(
                Refusal::Structure,
                toks,
                "two `shall` in one statement",
            )),
        }
    }

    /// `S shall VP`, with coordinated subjects ("A and B shall be stopped", "neither A
    /// nor B shall be on").
    fn shall(&self, subject: &[Tok], vp: &[Tok], gapped: bool) -> R<Item> {
        if subject.is_empty() || vp.is_empty() {
            return Err(fail(
                Refusal::Structure,
                subject,
                "a statement needs a subject and what it shall do",
            ));
        }
        let mut vp = vp;
        if vp[0].is("always") {
            vp = &vp[1..];
        }
        let (neg, core) = match vp.first().and_then(Tok::word) {
            Some("not" | "never") => (true, vp[1..].to_vec()),
            _ => (false, vp.to_vec()),
        };
        let core = stay_as_be(core);
        if core.is_empty() {
            return Err(fail(Refusal::Structure, vp, "nothing after `shall`"));
        }
        let be_positive = !neg && core[0].is("be");
        let mut alts = Alts::new();
        // Coordinated subjects.
        let neither = subject[0].is("neither") && subject.iter().any(|t| t.is("nor"));
        let mut subjects: Vec<(Vec<&[Tok]>, bool)> = vec![(vec![subject], false)];
        if neither {
            let body = &subject[1..];
            let parts: Vec<&[Tok]> = body.split(|t| t.is("nor")).collect();
            if parts.len() >= 2 && parts.iter().all(|p| !p.is_empty()) {
                subjects.push((parts, true));
            }
        } else if subject.iter().any(|t| t.is("and")) {
            for (items, join) in Self::lists(subject, false) {
                if join == Some(Join::And) {
                    subjects.push((items.iter().map(|(a, b)| &subject[*a..*b]).collect(), false));
                }
            }
        }
        for (nps, nor) in subjects {
            if nps.len() > 1 && !nor && neg {
                alts.fail(
                    fail(
                        Refusal::Ambiguous,
                        &[subject, vp].concat(),
                        "\"A and B shall not ...\" may mean neither or not both at once: write \"neither A nor B shall ...\" or state the condition",
                    )
                    .shift(subject.len() + vp.len()),
                );
                continue;
            }
            if nor && neg {
                alts.fail(fail(
                    Refusal::Structure,
                    subject,
                    "\"neither ... nor\" with a negated verb",
                ));
                continue;
            }
            let mut atoms = Vec::new();
            let mut failed = None;
            let mut single_plain = nps.len() == 1;
            for np in &nps {
                match self.statement(np, neg || nor, &core) {
                    Ok(found) => {
                        single_plain &= found.iter().all(|(_, plain)| *plain);
                        atoms.push(found.into_iter().map(|(a, _)| a).collect::<Vec<_>>())
                    }
                    Err(f) => {
                        failed = Some(f);
                        break;
                    }
                }
            }
            if let Some(f) = failed {
                alts.fail(f);
                continue;
            }
            let Some(combos) = product(&atoms) else {
                alts.fail(fail(
                    Refusal::Ambiguous,
                    subject,
                    "too many readings to compare",
                ));
                continue;
            };
            for combo in combos {
                let atoms: Vec<Atom> = combo.into_iter().flatten().collect();
                let never = (neg && single_plain && atoms.len() == 1).then(|| negate(&atoms[0]));
                alts.add(Ok(vec![Item {
                    atoms,
                    never,
                    be_positive,
                    gapped,
                }]));
            }
        }
        alts.finish(|| fail(Refusal::Structure, subject, "no subject found"))
    }

    /// One statement of a condition: `S VP` with VP "is ...", "is not ...", "does not
    /// ...", a verb; after "during"/"in"/"for" also an enumeration value ("therapy",
    /// "KVO mode") or a comparison without a verb ("blood flows above 400 mL/min").
    fn cond_clause(&self, toks: &[Tok], nominal: bool) -> R<Vec<Atom>> {
        let key = (toks.to_vec(), nominal);
        if let Some(r) = self.clauses.borrow().get(&key) {
            return r.clone();
        }
        let r = self.cond_clause_uncached(toks, nominal);
        self.clauses.borrow_mut().insert(key, r.clone());
        r
    }

    fn cond_clause_uncached(&self, toks: &[Tok], nominal: bool) -> R<Vec<Atom>> {
        let mut alts = Alts::new();
        for i in 1..toks.len() {
            let (subject, vp) = toks.split_at(i);
            let be = || Tok::written("be", &show(&vp[..1]));
            let (neg, core) = match (vp[0].word(), vp.get(1).and_then(Tok::word)) {
                (Some("is" | "are"), Some("not")) => {
                    (true, [vec![be()], vp[2..].to_vec()].concat())
                }
                (Some("is" | "are"), _) => (false, [vec![be()], vp[1..].to_vec()].concat()),
                (Some("does" | "do"), Some("not")) => (true, vp[2..].to_vec()),
                (Some("does" | "do"), _) => continue,
                _ => (false, vp.to_vec()),
            };
            if core.is_empty() || core.len() == 1 && core[0].is("be") {
                continue;
            }
            alts.add(
                self.statement(subject, neg, &stay_as_be(core))
                    .map(|v| v.into_iter().map(|(atoms, _)| atoms).collect()),
            );
            if nominal && vp[0].word().is_some_and(|w| BARE_RELATIONS.contains(&w)) {
                let core = [vec![Tok::synthetic("be")], vp.to_vec()].concat();
                alts.add(
                    self.statement(subject, false, &core)
                        .map(|v| v.into_iter().map(|(atoms, _)| atoms).collect()),
                );
            }
        }
        if nominal {
            alts.add(self.enum_value_phrase(toks));
        }
        alts.finish(|| {
            fail(
                Refusal::Unknown,
                toks,
                format!("`{}` is not a statement about the schema", show(toks)),
            )
        })
    }

    /// "therapy", "the Therapy phase", "KVO mode": a value of one enumeration variable.
    fn enum_value_phrase(&self, toks: &[Tok]) -> R<Vec<Atom>> {
        let mut toks = toks;
        while toks
            .first()
            .is_some_and(|t| t.word().is_some_and(|w| ARTICLES.contains(&w)))
        {
            toks = &toks[1..];
        }
        let Some(first) = toks.first().and_then(Tok::word) else {
            return Ok(Vec::new());
        };
        let np = np_stems(&toks[1..]);
        let mut found = Vec::new();
        for vi in &self.vars {
            let Kind::Enum(values) = &vi.kind else {
                continue;
            };
            let Some(value) = values.iter().find(|v| v.to_lowercase() == first) else {
                continue;
            };
            if toks.len() > 1
                && np
                    .as_ref()
                    .is_none_or(|np| vi.noun_match(np) < Some(Strength::Subset))
            {
                continue;
            }
            found.push(Atom {
                variable: vi.var.name.to_string(),
                relation: Relation::Is,
                value: Operand::Enum(value.clone()),
            });
        }
        Ok(found.into_iter().map(|a| vec![a]).collect())
    }

    /// Every variable the subject's stems name, with what `core` says of it (the
    /// readings of the strongest match per variable), and the worst refusal met.
    fn named_by(
        &self,
        stems: &[String],
        core: &[Tok],
        kind: &SubjectKind,
        said: usize,
    ) -> Named<'_> {
        let mut hits: Vec<(Strength, &VarInfo, Vec<Atom>)> = Vec::new();
        let mut named: Vec<String> = Vec::new();
        let mut strongest: Option<Strength> = None;
        let mut worst: Option<Fail> = None;
        for vi in &self.vars {
            let mut results: Vec<(Strength, Vec<Atom>)> = Vec::new();
            let mut name = |s: Strength| {
                strongest = strongest.max(Some(s));
                if !named.contains(&vi.var.name.to_string()) {
                    named.push(vi.var.name.to_string());
                }
            };
            if vi.kind == Kind::Bool {
                for (target, predicate) in &vi.readings {
                    let Some(s) = target.matches(stems) else {
                        continue;
                    };
                    name(s);
                    if let Some(positive) = predicate_match(core, predicate) {
                        results.push((s, vec![bool_atom(vi, positive)]));
                    }
                }
                if let Some(s) = vi.noun_match(stems) {
                    name(s);
                    let value = match core.iter().map(Tok::word).collect::<Vec<_>>().as_slice() {
                        [Some("be"), Some("true")] => Some(true),
                        [Some("be"), Some("false")] => Some(false),
                        [Some(h)] if wording::stem(h) == "hold" => Some(true),
                        _ => None,
                    };
                    if let Some(v) = value {
                        results.push((s, vec![bool_atom(vi, v)]));
                    }
                }
            } else if let Some(s) = vi.noun_match(stems) {
                name(s);
                if matches!(kind, SubjectKind::No) {
                    continue;
                }
                match self.compare(vi, core) {
                    Ok(found) => results.extend(found.into_iter().map(|a| (s, a))),
                    Err(f) => {
                        let f = f.shift(said);
                        match &worst {
                            Some(g) if g.rank() >= f.rank() => {}
                            _ => worst = Some(f),
                        }
                    }
                }
            }
            let Some(best) = results.iter().map(|(s, _)| *s).max() else {
                continue;
            };
            let mut distinct: Vec<Vec<Atom>> = Vec::new();
            for (s, a) in results {
                if s == best && !distinct.contains(&a) {
                    distinct.push(a);
                }
            }
            hits.extend(distinct.into_iter().map(|a| (best, vi, a)));
        }
        Named {
            hits,
            named,
            strongest,
            worst,
        }
    }

    /// A subject and what is said of it (`core`: "be ...", a verb, a relation), as the
    /// atoms of the one variable (or the two, for "both"/"neither") it names, one
    /// alternative per variable the phrase could name; the flag says the subject was a
    /// plain noun phrase.
    #[allow(clippy::type_complexity)]
    fn statement(
        &self,
        subject: &[Tok],
        neg: bool,
        core: &[Tok],
    ) -> Result<Vec<(Vec<Atom>, bool)>, Fail> {
        let mut np = subject;
        while np
            .first()
            .is_some_and(|t| t.word().is_some_and(|w| ARTICLES.contains(&w)))
        {
            np = &np[1..];
        }
        let kind = match np.first().and_then(Tok::word) {
            Some("both") => SubjectKind::Group { neither: false },
            Some("neither") => SubjectKind::Group { neither: true },
            Some("no") => SubjectKind::No,
            _ => SubjectKind::Plain,
        };
        if !matches!(kind, SubjectKind::Plain) {
            np = &np[1..];
        }
        let Some(stems) = np_stems(np) else {
            return Err(fail(
                Refusal::Structure,
                subject,
                format!("`{}` is not a noun phrase", show(subject)),
            ));
        };
        let whole = [subject, core].concat();
        let said = subject.len();
        let Named {
            hits,
            named,
            strongest,
            worst,
        } = self.named_by(&stems, core, &kind, said);
        let negated = |atoms: Vec<Atom>| -> Result<Vec<Atom>, Fail> {
            if atoms.len() != 1 {
                return Err(fail(
                    Refusal::Structure,
                    &whole,
                    "the negation of a range is two conditions joined by \"or\", which a form cannot state here",
                )
                .shift(whole.len()));
            }
            Ok(vec![negate(&atoms[0])])
        };
        let nothing = |worst: Option<Fail>| {
            worst.unwrap_or_else(|| {
                if named.is_empty() {
                    fail(
                        Refusal::Unknown,
                        subject,
                        format!(
                            "`{}` names no variable of the schema (by its name, its description or words of its description ending in its head noun)",
                            show(subject)
                        ),
                    )
                } else {
                    fail(
                        Refusal::Unknown,
                        &whole,
                        format!(
                            "`{}` says of {} something its description does not say",
                            show(&whole),
                            named
                                .iter()
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .shift(said)
                }
            })
        };
        match kind {
            SubjectKind::Group { neither } => {
                if neg && neither {
                    return Err(fail(
                        Refusal::Structure,
                        &whole,
                        "\"neither\" with a negated verb",
                    ));
                }
                let vars: BTreeSet<&str> = hits.iter().map(|(_, vi, _)| &*vi.var.name).collect();
                if vars.len() != 2 || hits.len() != 2 {
                    if hits.is_empty() {
                        return Err(nothing(worst));
                    }
                    return Err(fail(
                        Refusal::Ambiguous,
                        &whole,
                        format!(
                            "`{}` must name exactly two variables, each read one way; it names {}",
                            show(subject),
                            vars.iter()
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
                let mut atoms = Vec::new();
                for (_, _, a) in hits {
                    atoms.extend(if neg || neither { negated(a)? } else { a });
                }
                Ok(vec![(atoms, false)])
            }
            SubjectKind::Plain | SubjectKind::No => {
                // A phrase that names a variable exactly (its name, its whole description)
                // names only that one, whatever the rest of the sentence says; otherwise
                // every variable it could name is a reading, and one that leaves out a
                // qualifier ("the limit" for "upper pressure limit") is never the only one.
                let hits: Vec<_> = hits
                    .into_iter()
                    .filter(|(s, _, _)| strongest != Some(Strength::Exact) || *s == Strength::Exact)
                    .collect();
                if hits.is_empty() {
                    return Err(nothing(worst));
                }
                if hits.iter().all(|(s, _, _)| *s == Strength::Loose) {
                    return Err(fail(
                        Refusal::Unknown,
                        subject,
                        format!(
                            "`{}` leaves out a word that sets {} apart",
                            show(subject),
                            hits.iter()
                                .map(|(_, vi, _)| vi.described())
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                    ));
                }
                let flip = neg != matches!(kind, SubjectKind::No);
                let plain = matches!(kind, SubjectKind::Plain);
                let mut out = Vec::new();
                for (_, _, atoms) in hits {
                    out.push((if flip { negated(atoms)? } else { atoms }, plain));
                }
                Ok(out)
            }
        }
    }

    /// A numeric or enumeration variable compared: `core` is a relation and a value.
    fn compare(&self, vi: &VarInfo, core: &[Tok]) -> Result<Vec<Vec<Atom>>, Fail> {
        let mut found: Vec<Vec<Atom>> = Vec::new();
        let mut worst: Option<Fail> = None;
        for (words, rel) in relation_stems() {
            if !starts_with_stems(core, words) {
                continue;
            }
            let value = &core[words.len()..];
            if value.is_empty() {
                continue;
            }
            let r = match (&vi.kind, rel) {
                (Kind::Enum(values), Rel::Eq | Rel::In) => {
                    self.enum_value(vi, values, value).map(|a| vec![a])
                }
                (Kind::Enum(_), _) => continue,
                (_, Rel::In) => continue,
                (_, Rel::Between) => self.between(vi, value).map(|a| vec![a]),
                (_, r) => self.operand(vi, value).map(|vs| {
                    vs.into_iter()
                        .map(|v| {
                            vec![Atom {
                                variable: vi.var.name.to_string(),
                                relation: relation(*r),
                                value: v,
                            }]
                        })
                        .collect()
                }),
            };
            match r {
                Ok(readings) => {
                    for a in readings {
                        if !found.contains(&a) {
                            found.push(a)
                        }
                    }
                }
                Err(f) => match &worst {
                    Some(g) if g.rank() >= f.rank() => {}
                    _ => worst = Some(f),
                },
            }
        }
        if found.is_empty() {
            return Err(worst.unwrap_or_else(|| {
                fail(
                    Refusal::Unknown,
                    core,
                    format!(
                        "`{}` is not a comparison these patterns read for {}",
                        show(core),
                        vi.described()
                    ),
                )
            }));
        }
        Ok(found)
    }

    fn enum_value(&self, vi: &VarInfo, values: &[String], toks: &[Tok]) -> Result<Vec<Atom>, Fail> {
        let Some(first) = toks.first().and_then(Tok::word) else {
            return Err(fail(Refusal::Unknown, toks, "not a value"));
        };
        let Some(value) = values.iter().find(|v| v.to_lowercase() == first) else {
            return Err(fail(
                Refusal::Unknown,
                toks,
                format!(
                    "`{}` is not a value of {}; its values are {}",
                    show(toks),
                    vi.described(),
                    values.join(", ")
                ),
            ));
        };
        if toks.len() > 1 {
            let rest = np_stems(&toks[1..]);
            if rest
                .as_ref()
                .is_none_or(|np| vi.noun_match(np) < Some(Strength::Subset))
            {
                return Err(fail(
                    Refusal::Unknown,
                    &toks[1..],
                    format!(
                        "`{}` after the value `{value}` is not accounted for",
                        show(&toks[1..])
                    ),
                ));
            }
        }
        Ok(vec![Atom {
            variable: vi.var.name.to_string(),
            relation: Relation::Is,
            value: Operand::Enum(value.clone()),
        }])
    }

    /// "A and B U" (or "A U and B U"): at least A and at most B.
    fn between(&self, vi: &VarInfo, toks: &[Tok]) -> Result<Vec<Atom>, Fail> {
        let ands: Vec<usize> = (0..toks.len()).filter(|&i| toks[i].is("and")).collect();
        let [k] = ands.as_slice() else {
            return Err(fail(
                Refusal::Structure,
                toks,
                "\"between\" takes \"A and B\"",
            ));
        };
        let (lo, hi) = (&toks[..*k], &toks[k + 1..]);
        let hi_v = self.number(vi, hi)?;
        let lo_v = match lo {
            [Tok::Num { value, .. }] if hi.len() == 2 => self
                .number(vi, &[lo[0].clone(), hi[1].clone()])
                .map(|_| value.clone())?,
            _ => self.number(vi, lo)?,
        };
        let a = |relation, value: BigRational| Atom {
            variable: vi.var.name.to_string(),
            relation,
            value: Operand::Number(value),
        };
        Ok(vec![a(Relation::Ge, lo_v), a(Relation::Le, hi_v)])
    }

    /// A number in the variable's unit, or another numeric variable.
    fn operand(&self, vi: &VarInfo, toks: &[Tok]) -> Result<Vec<Operand>, Fail> {
        if !vi.numeric() {
            return Err(fail(Refusal::Unknown, toks, "not a number"));
        }
        if matches!(toks.first(), Some(Tok::Num { .. })) || toks.len() == 1 && toks[0].is("zero") {
            return self.number(vi, toks).map(|n| vec![Operand::Number(n)]);
        }
        let Some(np) = np_stems(toks) else {
            return Err(fail(
                Refusal::Unknown,
                toks,
                format!("`{}` is neither a number nor a variable", show(toks)),
            ));
        };
        let mut hits: Vec<(Strength, &VarInfo)> = self
            .vars
            .iter()
            .filter(|o| o.numeric() && o.var.name != vi.var.name)
            .filter_map(|o| o.noun_match(&np).map(|s| (s, o)))
            .collect();
        if hits.iter().any(|(s, _)| *s == Strength::Exact) {
            hits.retain(|(s, _)| *s == Strength::Exact);
        }
        if hits.iter().all(|(s, _)| *s == Strength::Loose) {
            hits.clear();
        }
        if hits.is_empty() {
            return Err(fail(
                Refusal::Unknown,
                toks,
                format!("`{}` names no numeric variable of the schema", show(toks)),
            ));
        }
        let mut out = Vec::new();
        let mut worst = None;
        for (_, o) in hits {
            match (&vi.var.unit, &o.var.unit) {
                (Some(a), Some(b)) if a != b => {
                    worst = Some(fail(
                        Refusal::Unit,
                        toks,
                        format!(
                            "`{}` is in {a} and `{}` in {b}: they cannot be compared",
                            vi.var.name, o.var.name
                        ),
                    ))
                }
                _ => out.push(Operand::Variable(o.var.name.to_string())),
            }
        }
        match worst {
            Some(f) if out.is_empty() => Err(f),
            _ => Ok(out),
        }
    }

    fn unit_like(&self, w: &str) -> bool {
        self.units.iter().any(|u| u == w)
            || UNIT_WORDS.iter().any(|(_, ws)| ws.contains(&w))
            || COMMON_UNITS.contains(&w)
            || w.contains('/')
            || w.contains('°')
            || w.contains('%')
    }

    /// The refusal of a number followed by `w` that is not its variable's unit: a unit
    /// error when `w` is a unit, else an unknown word.
    fn unit_refusal(&self, w: &str) -> Refusal {
        if self.unit_like(w) {
            Refusal::Unit
        } else {
            Refusal::Unknown
        }
    }

    fn same_unit(unit: &str, written: &str) -> bool {
        written == unit
            || UNIT_WORDS
                .iter()
                .any(|(u, ws)| *u == unit && ws.contains(&written))
    }

    /// `N`, `N UNIT` or `zero`, checked against the variable's unit and sort.
    fn number(&self, vi: &VarInfo, toks: &[Tok]) -> Result<BigRational, Fail> {
        let name = &vi.var.name;
        let (value, unit) = match toks {
            [Tok::Num { value, .. }] => (value.clone(), None),
            [Tok::Num { value, .. }, Tok::Word { text, .. }] => {
                (value.clone(), Some(text.as_str()))
            }
            [t] if t.is("zero") => (BigRational::zero(), None),
            [Tok::Num { .. }, Tok::Word { .. }, ..] | [Tok::Num { .. }, ..] => {
                return Err(fail(
                    Refusal::Unknown,
                    toks,
                    format!(
                        "`{}`: words after the number are not accounted for",
                        show(toks)
                    ),
                ))
            }
            _ => return Err(fail(Refusal::Unknown, toks, "not a number")),
        };
        match (unit, vi.var.unit.as_deref()) {
            (Some(w), Some(u)) if !Self::same_unit(u, w) => {
                return Err(fail(
                    self.unit_refusal(w),
                    toks,
                    format!("`{}`: `{name}` is in {u}, not {w}", show(toks)),
                ))
            }
            (Some(w), None) => {
                return Err(fail(
                    self.unit_refusal(w),
                    toks,
                    format!("`{}`: `{name}` has no unit", show(toks)),
                ))
            }
            (None, Some(u)) if !value.is_zero() => {
                return Err(fail(
                    Refusal::Unit,
                    toks,
                    format!(
                        "`{}` has no unit; `{name}` is in {u}: write {} {u}",
                        show(toks),
                        show(toks)
                    ),
                ))
            }
            _ => {}
        }
        if vi.kind == Kind::Int && !value.is_integer() {
            return Err(fail(
                Refusal::Unknown,
                toks,
                format!("`{name}` is an integer; {} is not", show(toks)),
            ));
        }
        Ok(value)
    }
}

/// "stay"/"remain" before a relation read as "be" ("shall stay between ...").
fn stay_as_be(core: Vec<Tok>) -> Vec<Tok> {
    if core.len() >= 2
        && (core[0].is("stay") || core[0].is("remain"))
        && core[1].word().is_some_and(|w| BARE_RELATIONS.contains(&w))
    {
        let mut out = vec![Tok::synthetic("be")];
        out.extend_from_slice(&core[1..]);
        out
    } else {
        core
    }
}

/// A noun phrase's stems (articles left out); `None` when it has a number or a comma.
fn np_stems(toks: &[Tok]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for t in toks {
        let w = t.word()?;
        if ARTICLES.contains(&w) {
            continue;
        }
        out.push(t.stem()?.to_string());
    }
    (!out.is_empty()).then_some(out)
}

fn bool_atom(vi: &VarInfo, value: bool) -> Atom {
    Atom {
        variable: vi.var.name.to_string(),
        relation: Relation::Is,
        value: Operand::Bool(value),
    }
}

/// What `core` says of a Boolean whose description's predicate is `predicate` (stems;
/// the words after the first must all be said):
/// `Some(true)` the same, `Some(false)` the opposite ("stopped" for "runs", "off" for
/// "on"), `None` something else. `core` is "be" and predicate words, or a verb and its
/// object.
fn predicate_match(core: &[Tok], predicate: &[String]) -> Option<bool> {
    let body = match core.first() {
        Some(t) if t.is("be") => &core[1..],
        _ => core,
    };
    let mut said: Vec<String> = Vec::new();
    for t in body {
        let w = t.word()?;
        if !ARTICLES.contains(&w) {
            said.push(t.stem()?.to_string());
        }
    }
    let (first, rest) = said.split_first()?;
    let (p_first, p_rest) = predicate.split_first()?;
    // The rest says the same ("bypass the dialyzer"): leaving out "on its battery" or
    // "downstream" would state something else.
    let as_set = |ws: &[String]| ws.iter().cloned().collect::<BTreeSet<String>>();
    let rest_ok = as_set(rest) == as_set(p_rest);
    if first == p_first && rest_ok {
        return Some(true);
    }
    if wording::opposite(first, p_first) && rest_ok {
        return Some(false);
    }
    if said.len() == predicate.len() && said.len() >= 2 {
        let differing: Vec<usize> = (0..said.len())
            .filter(|&i| said[i] != predicate[i])
            .collect();
        if let [i] = differing.as_slice() {
            if wording::opposite(&said[*i], &predicate[*i]) {
                return Some(false);
            }
        }
    }
    None
}

/// The variable that two atoms of a conjunction give two different enumeration values
/// ("during therapy and priming" reads as "and" but means "or").
fn two_values(atoms: &[Atom]) -> Option<&str> {
    for (i, a) in atoms.iter().enumerate() {
        for b in &atoms[i + 1..] {
            if let (Operand::Enum(x), Operand::Enum(y), Relation::Is, Relation::Is) =
                (&a.value, &b.value, a.relation, b.relation)
            {
                if a.variable == b.variable && x != y {
                    return Some(&a.variable);
                }
            }
        }
    }
    None
}

/// Every choice of one alternative per part; `None` when there are more than 256 (the
/// sentence is then refused: too many readings to compare).
fn product<T: Clone>(parts: &[Vec<T>]) -> Option<Vec<Vec<T>>> {
    let mut out: Vec<Vec<T>> = vec![Vec::new()];
    for p in parts {
        let mut next = Vec::new();
        for prefix in &out {
            for x in p {
                let mut v = prefix.clone();
                v.push(x.clone());
                next.push(v);
            }
        }
        out = next;
        if out.len() > 256 {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logic::SourceFile;

    const SCHEMA: &str = r#"
[spec]
name = "infusion and lights"

[[enums]]
name = "Mode"
values = ["Stopped", "Basal", "Bolus", "KVO"]

[[enums]]
name = "Switch"
values = ["Off", "Auto", "On"]

[[variables]]
name = "mode"
sort = "Mode"
description = "pumping mode"

[[variables]]
name = "light_switch"
sort = "Switch"
description = "position of the light rotary switch"

[[variables]]
name = "rate"
sort = "Real"
unit = "mL/h"
description = "current infusion rate"

[[variables]]
name = "max_rate"
sort = "Real"
unit = "mL/h"
description = "maximum infusion rate prescribed"

[[variables]]
name = "pressure"
sort = "Real"
unit = "mmHg"
description = "pressure in the line"

[[variables]]
name = "upper_limit"
sort = "Real"
unit = "mmHg"
description = "upper pressure limit"

[[variables]]
name = "lower_limit"
sort = "Real"
unit = "mmHg"
description = "lower pressure limit"

[[variables]]
name = "count"
sort = "Int"
description = "number of retries"

[[variables]]
name = "door_open"
sort = "Bool"
description = "the cassette door is open"

[[variables]]
name = "alarm"
sort = "Bool"
description = "the alarm sounds"

[[variables]]
name = "motor_on"
sort = "Bool"
description = "the motor runs"

[[variables]]
name = "low_beam_left"
sort = "Bool"
description = "left low beam on"

[[variables]]
name = "low_beam_right"
sort = "Bool"
description = "right low beam on"

[[variables]]
name = "occlusion"
sort = "Bool"
description = "an occlusion is detected"

[[variables]]
name = "flag"
sort = "Bool"

[[variables]]
name = "blood_temp"
sort = "Real"
unit = "degC"
description = "temperature of the blood"

[[variables]]
name = "room_temp"
sort = "Real"
unit = "degC"
description = "temperature of the room"
"#;

    fn spec() -> Spec {
        reqs::parse_spec(SourceFile::new("t.toml", SCHEMA)).unwrap()
    }

    fn read(text: &str) -> Result<String, NotParsed> {
        let s = spec();
        parse(&s, text).map(|f| f.smtlib(&s))
    }

    #[track_caller]
    fn ok(text: &str, formula: &str) {
        match read(text) {
            Ok(f) => assert_eq!(f, formula, "{text}"),
            Err(e) => panic!("{text}\n  not parsed ({:?}): {}", e.kind, e.reason),
        }
    }

    #[track_caller]
    fn refused(text: &str, kind: Refusal) {
        match read(text) {
            Ok(f) => panic!("{text}\n  parsed as {f}, expected a refusal ({kind:?})"),
            Err(e) => assert_eq!(e.kind, kind, "{text}: {}", e.reason),
        }
    }

    #[test]
    fn ears_patterns() {
        ok(
            "While the cassette door is open, the motor shall not run.",
            "(=> door_open (not motor_on))",
        );
        ok(
            "When the pressure in the line exceeds the upper pressure limit, the alarm shall sound.",
            "(=> (> pressure upper_limit) alarm)",
        );
        ok(
            "If the pressure is below the lower limit, then the alarm shall sound.",
            "(=> (< pressure lower_limit) alarm)",
        );
        ok(
            "If the pressure is below the lower limit the alarm shall sound.",
            "(=> (< pressure lower_limit) alarm)",
        );
        ok(
            "While the pumping mode is KVO, when the door is open, the alarm shall sound.",
            "(=> (and (= mode KVO) door_open) alarm)",
        );
        ok(
            "The infusion rate shall be at most the maximum infusion rate.",
            "(<= rate max_rate)",
        );
        ok("The motor shall never run.", "(not motor_on)");
        ok(
            "The current infusion rate shall not exceed 50 mL/h.",
            "(not (> rate 50.0))",
        );
        ok(
            "The motor shall not run while the cassette door is open.",
            "(=> door_open (not motor_on))",
        );
        ok(
            "The alarm shall sound if an occlusion is detected.",
            "(=> occlusion alarm)",
        );
        ok(
            "The pressure in the line shall be between 10 and 20 mmHg while the motor runs.",
            "(=> motor_on (and (>= pressure 10.0) (<= pressure 20.0)))",
        );
        ok(
            "When the door is open, the motor shall stop, and the alarm shall sound.",
            "(=> door_open (and (not motor_on) alarm))",
        );
        ok(
            "During KVO the current infusion rate shall be at most 1 mL/h.",
            "(=> (= mode KVO) (<= rate 1.0))",
        );
        ok(
            "In KVO mode, the current infusion rate shall be at most 1 mL/h.",
            "(=> (= mode KVO) (<= rate 1.0))",
        );
        ok(
            "For current infusion rates above 20 mL/h the alarm shall sound.",
            "(=> (> rate 20.0) alarm)",
        );
        ok(
            "If flag holds, then the number of retries is 0.",
            "(=> flag (= count 0))",
        );
    }

    #[test]
    fn every_relation() {
        for (words, op) in [
            ("is above", ">"),
            ("exceeds", ">"),
            ("is greater than", ">"),
            ("is more than", ">"),
            ("rises above", ">"),
            ("is below", "<"),
            ("is less than", "<"),
            ("falls below", "<"),
            ("drops below", "<"),
            ("is at least", ">="),
            ("is not below", ">="),
            ("is at most", "<="),
            ("does not exceed", "<="),
            ("is not above", "<="),
            ("is", "="),
            ("equals", "="),
            ("is equal to", "="),
            ("is not", "distinct"),
            ("does not equal", "distinct"),
        ] {
            ok(
                &format!("If the pressure {words} 100 mmHg, the alarm shall sound."),
                &format!("(=> ({op} pressure 100.0) alarm)"),
            );
        }
        ok(
            "If the pressure is between 10 and 20 mmHg, the alarm shall sound.",
            "(=> (and (>= pressure 10.0) (<= pressure 20.0)) alarm)",
        );
        ok(
            "If the pressure is between 10 mmHg and 20 mmHg, the alarm shall sound.",
            "(=> (and (>= pressure 10.0) (<= pressure 20.0)) alarm)",
        );
        ok("The number of retries shall stay below 3.", "(< count 3)");
        ok(
            "If the pumping mode is not Stopped, the motor shall run.",
            "(=> (not (= mode Stopped)) motor_on)",
        );
        ok(
            "If the position of the light rotary switch is in auto, the left low beam shall be on.",
            "(=> (= light_switch Auto) low_beam_left)",
        );
        ok(
            "If the number of retries is -2, the alarm shall sound.",
            "(=> (= count (- 2)) alarm)",
        );
        ok(
            "The current infusion rate shall be zero while the motor is stopped.",
            "(=> (not motor_on) (= rate 0.0))",
        );
    }

    #[test]
    fn booleans_by_their_description() {
        ok(
            "When the cassette door is not open, the left low beam shall be off.",
            "(=> (not door_open) (not low_beam_left))",
        );
        ok(
            "When the motor does not run, the alarm shall not sound.",
            "(=> (not motor_on) (not alarm))",
        );
        ok(
            "When the motor is stopped, the alarm shall sound.",
            "(=> (not motor_on) alarm)",
        );
        ok(
            "When no occlusion is detected, the motor shall run.",
            "(=> (not occlusion) motor_on)",
        );
        ok(
            "When the door is open, both low beams shall be on.",
            "(=> door_open (and low_beam_left low_beam_right))",
        );
        ok(
            "When the door is open, neither low beam shall be on.",
            "(=> door_open (and (not low_beam_left) (not low_beam_right)))",
        );
        ok(
            "When the door is open, neither the left low beam nor the right low beam shall be on.",
            "(=> door_open (and (not low_beam_left) (not low_beam_right)))",
        );
        ok(
            "When the door is open, the left low beam and the right low beam shall be off.",
            "(=> door_open (and (not low_beam_left) (not low_beam_right)))",
        );
    }

    #[test]
    fn joins() {
        ok(
            "When the door is open and an occlusion is detected, the alarm shall sound and the motor shall stop.",
            "(=> (and door_open occlusion) (and alarm (not motor_on)))",
        );
        ok(
            "When the door is open or an occlusion is detected, the alarm shall sound.",
            "(=> (or door_open occlusion) alarm)",
        );
        ok(
            "When either the door is open or an occlusion is detected, the alarm shall sound.",
            "(=> (or door_open occlusion) alarm)",
        );
        ok(
            "When the door is open, an occlusion is detected and the motor runs, the alarm shall sound.",
            "(=> (and door_open occlusion motor_on) alarm)",
        );
        ok(
            "When the door is open, the left low beam shall be on and the right low beam off.",
            "(=> door_open (and low_beam_left (not low_beam_right)))",
        );
        ok(
            "When neither the door is open nor an occlusion is detected, the motor shall run.",
            "(=> (and (not door_open) (not occlusion)) motor_on)",
        );
        // "and" and "or" in one list: which binds first is not said.
        refused(
            "When the door is open and an occlusion is detected or the motor runs, the alarm shall sound.",
            Refusal::Unknown,
        );
    }

    #[test]
    fn units_are_checked() {
        refused(
            "The current infusion rate shall not exceed 50 L/h.",
            Refusal::Unit,
        );
        refused(
            "The current infusion rate shall not exceed 50.",
            Refusal::Unit,
        );
        refused(
            "If the pressure exceeds 10 kPa, the alarm shall sound.",
            Refusal::Unit,
        );
        refused(
            "The number of retries shall be at most 3 mL.",
            Refusal::Unit,
        );
        refused(
            "The current infusion rate shall be at most the pressure in the line.",
            Refusal::Unit,
        );
        refused(
            "The number of retries shall be at most 2.5.",
            Refusal::Unknown,
        );
    }

    #[test]
    fn ambiguity_is_refused() {
        // "the limit" is the upper or the lower one.
        refused(
            "If the pressure exceeds the pressure limit, the alarm shall sound.",
            Refusal::Unknown,
        );
        // "the temperature" names two variables.
        refused(
            "If the temperature exceeds 40 degC, the alarm shall sound.",
            Refusal::Ambiguous,
        );
        let e = read("If the temperature exceeds 40 degC, the alarm shall sound.").unwrap_err();
        assert!(
            e.reason.contains("blood_temp") && e.reason.contains("room_temp"),
            "{}",
            e.reason
        );
        // "not both at once" or "neither"?
        refused(
            "The left low beam and the right low beam shall not be on.",
            Refusal::Ambiguous,
        );
        // "the infusion rate" is the current one or, leaving out "maximum", the other.
        refused(
            "The infusion rate shall not exceed 50 mL/h.",
            Refusal::Ambiguous,
        );
        // "the low beam" leaves out "left" / "right".
        refused(
            "When the door is open, the low beam shall be on.",
            Refusal::Unknown,
        );
        // A condition after two statements: does it govern both?
        refused(
            "The motor shall stop and the alarm shall sound when an occlusion is detected.",
            Refusal::Ambiguous,
        );
        refused(
            "When the door is open, the motor shall stop and the alarm shall sound when an occlusion is detected.",
            Refusal::Unknown,
        );
        refused(
            "The motor shall run unless the door is open.",
            Refusal::Unsupported,
        );
        refused("When the door is open, it shall stop.", Refusal::Pronoun);
        refused(
            "When the door is open, the motor shall stop. The alarm shall sound.",
            Refusal::Structure,
        );
        refused(
            "When the door is open, the alarm shall sound loudly.",
            Refusal::Unknown,
        );
        refused("The motor should run.", Refusal::Unsupported);
        refused(
            "When the door is open; the motor shall stop.",
            Refusal::Structure,
        );
    }

    #[test]
    fn negations_and_ranges() {
        ok(
            "When the motor is not stopped, the alarm shall sound.",
            "(=> motor_on alarm)",
        );
        ok(
            "The motor shall not be stopped while the cassette door is not open.",
            "(=> (not door_open) motor_on)",
        );
        // "not between" is "below or above": not one list of a form.
        refused(
            "If the pressure is not between 10 and 20 mmHg, the alarm shall sound.",
            Refusal::Structure,
        );
        refused(
            "The pressure in the line shall not be between 10 and 20 mmHg.",
            Refusal::Structure,
        );
        refused(
            "If the pressure is between 10 and 20 mmHg or the motor runs, the alarm shall sound.",
            Refusal::Structure,
        );
    }

    #[test]
    fn a_name_does_not_overrule_its_description() {
        let s = reqs::parse_spec(SourceFile::new(
            "n.toml",
            "[spec]\nname = \"n\"\n[[variables]]\nname = \"pump_on\"\nsort = \"Bool\"\ndescription = \"the pump is stopped\"\n\
             [[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
        ))
        .unwrap();
        assert!(parse(&s, "When the pump is on, the alarm shall be on.").is_err());
        assert_eq!(
            parse(&s, "When the pump is stopped, alarm shall hold.")
                .unwrap()
                .smtlib(&s),
            "(=> pump_on alarm)"
        );
    }

    #[test]
    fn every_word_is_accounted_for() {
        refused(
            "When the cassette door is wide open, the alarm shall sound.",
            Refusal::Unknown,
        );
        refused(
            "When the door is open, the alarm shall sound in the cabin.",
            Refusal::Unknown,
        );
        refused(
            "When the red door is open, the alarm shall sound.",
            Refusal::Unknown,
        );
        // No description has "limit" after "rate".
        refused("The rate limit shall not exceed 5 mL/h.", Refusal::Unknown);
    }

    #[test]
    fn a_left_out_qualifier_never_names_alone() {
        let s = reqs::parse_spec(SourceFile::new(
            "q.toml",
            "[spec]\nname = \"q\"\n[[variables]]\nname = \"max_rate\"\nsort = \"Real\"\nunit = \"mL/h\"\n\
             description = \"maximum infusion rate\"\n",
        ))
        .unwrap();
        let e = parse(&s, "The infusion rate shall not exceed 5 mL/h.").unwrap_err();
        assert_eq!(e.kind, Refusal::Unknown, "{}", e.reason);
        assert!(e.reason.contains("leaves out"), "{}", e.reason);
        assert_eq!(
            parse(&s, "The maximum rate shall not exceed 5 mL/h.")
                .unwrap()
                .smtlib(&s),
            "(not (> max_rate 5.0))"
        );
    }
}

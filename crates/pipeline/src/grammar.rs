//! Answers that cannot be malformed: a GBNF grammar (llama.cpp's grammar format) of the
//! formula answers a spec admits, for servers that constrain decoding with one.
//!
//! The grammar derives exactly one SMT-LIB term in prefix notation over the spec's own
//! symbols, typed: Boolean-valued, numeric and enumeration-valued terms are separate
//! nonterminals, so a variable or an enumeration value can only stand where its sort
//! fits, and every operator gets the number and sorts of arguments vera's elaborator
//! accepts. Nesting is bounded (`bool-D` has arguments from `bool-(D-1)` and so on down
//! to the atoms at level 0), n-ary operators take at most [`MAX_ARGS`] arguments and
//! numbers at most 12 digits (6 after the point), so a runaway answer cannot be
//! derived: the longest derivable answer is finite. Whitespace is exactly one space
//! between tokens; there is no room for prose, fences or a second term.
//!
//! What it covers: `not and or => xor ite = distinct < <= > >= + - * / abs`, numerals,
//! decimals (only when the schema has a Real variable), the declared variables, and the
//! values of every enumeration some variable has. In a linear logic a product has a
//! constant factor and a quotient a constant divisor (a literal or its negation). Not
//! covered (never derivable, though the parser accepts them): `true`/`false`, `let`,
//! `!` annotations, `div`, `mod`, `to_real`, `to_int`, `is_int`, defined functions,
//! chains of more than two comparisons.
//!
//! The grammar is a help for the model, not a trust boundary: an answer is parsed with
//! `logic::parse_untrusted` and screened by the solver exactly as without it.
//!
//! [`Grammar`] is data; [`Grammar::gbnf`] renders it, [`Grammar::matches`] recognizes a
//! text and [`Grammar::sample`] derives a random answer (both for tests).

use logic::context::Arithmetic;
use logic::{Sort, Term};
use reqs::Spec;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Nesting depth of the formula grammar: at most this many nested applications.
pub const DEFAULT_DEPTH: usize = 6;

/// Most arguments of an n-ary operator (`and`, `or`, `+`, `-`, `*`).
pub const MAX_ARGS: u32 = 8;

/// A grammar expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A literal string.
    Lit(String),
    /// One character in an inclusive range.
    Range(char, char),
    /// A rule by name.
    Ref(String),
    /// One after the other.
    Seq(Vec<Expr>),
    /// One of.
    Alt(Vec<Expr>),
    /// Between `min` and `max` repetitions.
    Repeat(Box<Expr>, u32, u32),
}

fn lit(s: &str) -> Expr {
    Expr::Lit(s.to_string())
}
fn r(name: &str) -> Expr {
    Expr::Ref(name.to_string())
}
fn seq(items: Vec<Expr>) -> Expr {
    Expr::Seq(items)
}
fn alt(items: Vec<Expr>) -> Expr {
    if items.len() == 1 {
        items.into_iter().next().expect("one")
    } else {
        Expr::Alt(items)
    }
}
fn rep(e: Expr, min: u32, max: u32) -> Expr {
    Expr::Repeat(Box::new(e), min, max)
}

/// A GBNF grammar: named rules, the first is `root`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    rules: Vec<(String, Expr)>,
}

/// The symbols a spec offers to formulas, by sort.
struct Symbols {
    bools: Vec<String>,
    nums: Vec<String>,
    /// Enumerations some variable has: (variables, values).
    enums: Vec<(Vec<String>, Vec<String>)>,
    reals: bool,
    linear: bool,
}

impl Symbols {
    fn of(spec: &Spec) -> Symbols {
        let name = |v: &reqs::spec::Variable| {
            logic::print::term(&Term::Var(v.name.clone(), v.sort.clone()))
        };
        let of_sort = |pred: &dyn Fn(&Sort) -> bool| -> Vec<String> {
            spec.variables
                .iter()
                .filter(|v| pred(&v.sort))
                .map(name)
                .collect()
        };
        let enums = spec
            .enums
            .iter()
            .filter_map(|(sort, values)| {
                let vars = of_sort(&|s| matches!(s, Sort::Enum(e) if e == sort));
                (!vars.is_empty()).then(|| {
                    let values = values
                        .iter()
                        .map(|c| {
                            logic::print::term(&Term::EnumVal {
                                sort: sort.clone(),
                                ctor: c.clone(),
                            })
                        })
                        .collect();
                    (vars, values)
                })
            })
            .collect();
        Symbols {
            bools: of_sort(&|s| *s == Sort::Bool),
            nums: of_sort(&Sort::is_numeric),
            enums,
            reals: spec.variables.iter().any(|v| v.sort == Sort::Real),
            linear: spec.context.arithmetic() == Arithmetic::Linear,
        }
    }
}

impl Grammar {
    /// The grammar of one formula answer over `spec`'s schema, nested at most
    /// [`DEFAULT_DEPTH`] deep.
    pub fn formula(spec: &Spec) -> Grammar {
        Grammar::formula_with_depth(spec, DEFAULT_DEPTH)
    }

    /// The grammar of one formula answer nested at most `depth` (at least 1) deep.
    pub fn formula_with_depth(spec: &Spec, depth: usize) -> Grammar {
        build(&Symbols::of(spec), depth.max(1))
    }

    /// The rules, `root` first.
    pub fn rules(&self) -> &[(String, Expr)] {
        &self.rules
    }

    /// The grammar in llama.cpp's GBNF notation, one rule per line.
    pub fn gbnf(&self) -> String {
        let mut out = String::new();
        for (name, e) in &self.rules {
            let _ = writeln!(out, "{name} ::= {}", render(e, true));
        }
        out
    }

    /// The place of each rule, by name.
    fn index(&self) -> HashMap<&str, usize> {
        self.rules
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.as_str(), i))
            .collect()
    }

    /// Whether the grammar derives exactly `text`.
    pub fn matches(&self, text: &str) -> bool {
        let index = self.index();
        let mut m = Matcher {
            g: self,
            index,
            text,
            memo: HashMap::new(),
        };
        m.rule(0, 0).contains(&text.len())
    }

    /// A random answer the grammar derives, from `seed` (deterministic). Repetitions
    /// lean to their minimum so that answers stay small.
    pub fn sample(&self, seed: u64) -> String {
        let index = self.index();
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut out = String::new();
        self.derive(&self.rules[0].1, &index, &mut rng, &mut out);
        out
    }

    fn derive(&self, e: &Expr, index: &HashMap<&str, usize>, rng: &mut u64, out: &mut String) {
        let mut next = |n: u64| {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng % n
        };
        match e {
            Expr::Lit(s) => out.push_str(s),
            Expr::Range(a, b) => {
                let span = u64::from(*b as u32 - *a as u32) + 1;
                let c = char::from_u32(*a as u32 + next(span) as u32).unwrap_or(*a);
                out.push(c);
            }
            Expr::Ref(n) => self.derive(&self.rules[index[n.as_str()]].1, index, rng, out),
            Expr::Seq(items) => {
                for i in items {
                    self.derive(i, index, rng, out);
                }
            }
            Expr::Alt(items) => {
                let k = next(items.len() as u64) as usize;
                self.derive(&items[k], index, rng, out);
            }
            Expr::Repeat(inner, min, max) => {
                let n = if next(2) == 0 {
                    *min
                } else {
                    *min + next(u64::from(max - min) + 1) as u32
                };
                for _ in 0..n {
                    self.derive(inner, index, rng, out);
                }
            }
        }
    }
}

struct Matcher<'a> {
    g: &'a Grammar,
    index: HashMap<&'a str, usize>,
    text: &'a str,
    memo: HashMap<(usize, usize), Vec<usize>>,
}

impl Matcher<'_> {
    /// End positions of the derivations of rule `i` from `pos`.
    fn rule(&mut self, i: usize, pos: usize) -> Vec<usize> {
        if let Some(v) = self.memo.get(&(i, pos)) {
            return v.clone();
        }
        let e = self.g.rules[i].1.clone();
        let v = self.expr(&e, pos);
        self.memo.insert((i, pos), v.clone());
        v
    }

    /// End positions of the derivations of `e` from any of the positions `at`, in
    /// order, each once.
    fn step(&mut self, e: &Expr, at: Vec<usize>) -> Vec<usize> {
        let mut next = Vec::new();
        for p in at {
            next.extend(self.expr(e, p));
        }
        next.sort_unstable();
        next.dedup();
        next
    }

    fn expr(&mut self, e: &Expr, pos: usize) -> Vec<usize> {
        let mut ends = match e {
            Expr::Lit(s) => {
                if self.text[pos..].starts_with(s.as_str()) {
                    vec![pos + s.len()]
                } else {
                    vec![]
                }
            }
            Expr::Range(a, b) => match self.text[pos..].chars().next() {
                Some(c) if *a <= c && c <= *b => vec![pos + c.len_utf8()],
                _ => vec![],
            },
            Expr::Ref(n) => {
                let i = self.index[n.as_str()];
                self.rule(i, pos)
            }
            Expr::Seq(items) => {
                let mut at = vec![pos];
                for it in items {
                    at = self.step(it, at);
                    if at.is_empty() {
                        break;
                    }
                }
                at
            }
            Expr::Alt(items) => {
                let mut all = Vec::new();
                for it in items {
                    all.extend(self.expr(it, pos));
                }
                all
            }
            Expr::Repeat(inner, min, max) => {
                let mut all = Vec::new();
                let mut at = vec![pos];
                for k in 0..=*max {
                    if k >= *min {
                        all.extend(at.iter().copied());
                    }
                    if k == *max {
                        break;
                    }
                    at = self.step(inner, at);
                    if at.is_empty() {
                        break;
                    }
                }
                all
            }
        };
        ends.sort_unstable();
        ends.dedup();
        ends
    }
}

/// GBNF text of `e`; `top` when it is a whole rule body (no parentheses needed).
fn render(e: &Expr, top: bool) -> String {
    match e {
        Expr::Lit(s) => {
            let mut o = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => o.push_str("\\\""),
                    '\\' => o.push_str("\\\\"),
                    '\n' => o.push_str("\\n"),
                    '\t' => o.push_str("\\t"),
                    '\r' => o.push_str("\\r"),
                    c => o.push(c),
                }
            }
            o.push('"');
            o
        }
        Expr::Range(a, b) if a == b => format!("[{a}]"),
        Expr::Range(a, b) => format!("[{a}-{b}]"),
        Expr::Ref(n) => n.clone(),
        Expr::Seq(items) => {
            let s = items
                .iter()
                .map(|i| match i {
                    Expr::Alt(_) => format!("({})", render(i, true)),
                    _ => render(i, false),
                })
                .collect::<Vec<_>>()
                .join(" ");
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Alt(items) => {
            let s = items
                .iter()
                .map(|i| render(i, true))
                .collect::<Vec<_>>()
                .join(" | ");
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Repeat(inner, min, max) => {
            let body = match **inner {
                Expr::Seq(_) | Expr::Alt(_) => format!("({})", render(inner, true)),
                _ => render(inner, false),
            };
            if (*min, *max) == (0, 1) {
                format!("{body}?")
            } else if min == max {
                format!("{body}{{{min}}}")
            } else {
                format!("{body}{{{min},{max}}}")
            }
        }
    }
}

fn build(s: &Symbols, depth: usize) -> Grammar {
    let mut rules: Vec<(String, Expr)> = Vec::new();
    rules.push(("root".into(), bool_at(depth)));
    for level in (0..=depth).rev() {
        // Boolean-valued terms.
        if s.has_bool(level) {
            rules.push((format!("bool-{level}"), bool_terms(s, level)));
        }
        // Numeric terms (below the root: the answer itself is Boolean).
        if !s.nums.is_empty() && level < depth {
            rules.push((format!("num-{level}"), num_terms(s, level)));
        }
        // Enumeration-valued terms, one family per enumeration.
        for k in (0..s.enums.len()).filter(|_| level < depth) {
            rules.push((format!("enum-{k}-{level}"), enum_terms(s, k, level)));
        }
    }
    terminals(s, &mut rules);
    Grammar { rules }
}

/// The rule of Boolean terms of `level`.
fn bool_at(level: usize) -> Expr {
    r(&format!("bool-{level}"))
}

/// The rule of numeric terms of `level`.
fn num_at(level: usize) -> Expr {
    r(&format!("num-{level}"))
}

/// The rule of terms of enumeration `k` of `level`.
fn enum_at(k: usize, level: usize) -> Expr {
    r(&format!("enum-{k}-{level}"))
}

/// The space between an operator's arguments.
fn sp() -> Expr {
    lit(" ")
}

/// Up to MAX_ARGS arguments of `x` after `first` more: " x" repeated.
fn more(x: Expr, at_least: u32) -> Expr {
    rep(seq(vec![sp(), x]), at_least, MAX_ARGS - 1)
}

/// The alternatives of `names`, each a literal.
fn words(names: &[String]) -> Expr {
    alt(names.iter().map(|x| lit(x)).collect())
}

impl Symbols {
    /// Whether there are Boolean terms of `level` (variables, or operators one level down).
    fn has_bool(&self, level: usize) -> bool {
        level > 0 || !self.bools.is_empty()
    }
}

/// The Boolean terms of `level`: variables, connectives, comparisons, (dis)equalities.
fn bool_terms(s: &Symbols, level: usize) -> Expr {
    let has_num = !s.nums.is_empty();
    let mut alts = Vec::new();
    if !s.bools.is_empty() {
        alts.push(r("bvar"));
    }
    if level > 0 {
        let p = level - 1;
        let b = bool_at;
        let n = num_at;
        if s.has_bool(p) {
            alts.push(seq(vec![lit("(not "), b(p), lit(")")]));
            alts.push(seq(vec![
                lit("("),
                alt(vec![lit("and"), lit("or")]),
                sp(),
                b(p),
                more(b(p), 1),
                lit(")"),
            ]));
            for op in ["=>", "xor"] {
                alts.push(seq(vec![
                    lit(&format!("({op} ")),
                    b(p),
                    sp(),
                    b(p),
                    lit(")"),
                ]));
            }
            alts.push(seq(vec![
                lit("(ite "),
                b(p),
                sp(),
                b(p),
                sp(),
                b(p),
                lit(")"),
            ]));
        }
        if has_num {
            alts.push(seq(vec![
                lit("("),
                r("cmp"),
                sp(),
                n(p),
                sp(),
                n(p),
                lit(")"),
            ]));
        }
        let mut pairs = Vec::new();
        if s.has_bool(p) {
            pairs.push(seq(vec![b(p), sp(), b(p)]));
        }
        if has_num {
            pairs.push(seq(vec![n(p), sp(), n(p)]));
        }
        for k in 0..s.enums.len() {
            pairs.push(seq(vec![enum_at(k, p), sp(), enum_at(k, p)]));
        }
        if !pairs.is_empty() {
            alts.push(seq(vec![
                lit("("),
                alt(vec![lit("="), lit("distinct")]),
                sp(),
                alt(pairs),
                lit(")"),
            ]));
        }
    }
    if alts.is_empty() {
        // A schema without variables: nothing to say but a constant.
        alts.push(lit("true"));
    }
    alt(alts)
}

/// The numeric terms of `level`: variables, literals and arithmetic one level down.
fn num_terms(s: &Symbols, level: usize) -> Expr {
    let mut alts = vec![r("nvar"), r("lit")];
    if level > 0 {
        let p = level - 1;
        let n = num_at;
        alts.push(seq(vec![lit("(+ "), n(p), more(n(p), 1), lit(")")]));
        alts.push(seq(vec![lit("(- "), n(p), more(n(p), 0), lit(")")]));
        if s.linear {
            alts.push(seq(vec![lit("(* "), r("clit"), sp(), n(p), lit(")")]));
            alts.push(seq(vec![lit("(* "), n(p), sp(), r("clit"), lit(")")]));
            if s.reals {
                alts.push(seq(vec![lit("(/ "), n(p), sp(), r("clit"), lit(")")]));
            }
        } else {
            alts.push(seq(vec![lit("(* "), n(p), more(n(p), 1), lit(")")]));
            if s.reals {
                alts.push(seq(vec![lit("(/ "), n(p), sp(), n(p), lit(")")]));
            }
        }
        alts.push(seq(vec![lit("(abs "), n(p), lit(")")]));
        if s.has_bool(p) {
            alts.push(seq(vec![
                lit("(ite "),
                bool_at(p),
                sp(),
                n(p),
                sp(),
                n(p),
                lit(")"),
            ]));
        }
    }
    alt(alts)
}

/// The terms of enumeration `k` of `level`: variables, values, and `ite` one level down.
fn enum_terms(s: &Symbols, k: usize, level: usize) -> Expr {
    let mut alts = vec![r(&format!("evar-{k}")), r(&format!("eval-{k}"))];
    if level > 0 && s.has_bool(level - 1) {
        let p = level - 1;
        alts.push(seq(vec![
            lit("(ite "),
            bool_at(p),
            sp(),
            enum_at(k, p),
            sp(),
            enum_at(k, p),
            lit(")"),
        ]));
    }
    alt(alts)
}

/// The terminal rules: names, numerals, comparison operators, enumeration values.
fn terminals(s: &Symbols, rules: &mut Vec<(String, Expr)>) {
    if !s.bools.is_empty() {
        rules.push(("bvar".into(), words(&s.bools)));
    }
    if !s.nums.is_empty() {
        rules.push(("nvar".into(), words(&s.nums)));
        let digits = rep(Expr::Range('0', '9'), 0, 11);
        let int = alt(vec![lit("0"), seq(vec![Expr::Range('1', '9'), digits])]);
        let number = if s.reals {
            seq(vec![
                int,
                rep(seq(vec![lit("."), rep(Expr::Range('0', '9'), 1, 6)]), 0, 1),
            ])
        } else {
            int
        };
        rules.push(("lit".into(), number));
        if s.linear {
            rules.push((
                "clit".into(),
                alt(vec![r("lit"), seq(vec![lit("(- "), r("lit"), lit(")")])]),
            ));
        }
        rules.push((
            "cmp".into(),
            alt(vec![lit("<="), lit("<"), lit(">="), lit(">")]),
        ));
    }
    for (k, (vars, values)) in s.enums.iter().enumerate() {
        rules.push((format!("evar-{k}"), words(vars)));
        rules.push((format!("eval-{k}"), words(values)));
    }
}

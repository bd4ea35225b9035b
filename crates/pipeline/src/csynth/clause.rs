//! ACSL clauses as the synthesis loop handles them: a kind chosen from a fixed list
//! and one sanitized expression. Only these two strings are ever taken from a model's
//! answer; the clause text inserted into the C file is built here.

use serde::{Deserialize, Serialize};

/// The clause kinds the loop asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClauseKind {
    /// `requires P` (function contracts).
    Requires,
    /// `ensures P` (function contracts).
    Ensures,
    /// `assigns L` (function contracts).
    Assigns,
    /// `loop invariant P`.
    LoopInvariant,
    /// `loop assigns L`.
    LoopAssigns,
    /// `loop variant T`.
    LoopVariant,
}

impl ClauseKind {
    /// Kinds allowed in a function contract.
    pub const CONTRACT: [ClauseKind; 3] = [
        ClauseKind::Requires,
        ClauseKind::Ensures,
        ClauseKind::Assigns,
    ];
    /// Kinds allowed in a loop annotation.
    pub const LOOP: [ClauseKind; 3] = [
        ClauseKind::LoopInvariant,
        ClauseKind::LoopAssigns,
        ClauseKind::LoopVariant,
    ];

    /// The ACSL keyword(s).
    pub fn keyword(self) -> &'static str {
        match self {
            ClauseKind::Requires => "requires",
            ClauseKind::Ensures => "ensures",
            ClauseKind::Assigns => "assigns",
            ClauseKind::LoopInvariant => "loop invariant",
            ClauseKind::LoopAssigns => "loop assigns",
            ClauseKind::LoopVariant => "loop variant",
        }
    }

    /// Parses a keyword as the model writes it (`loop invariant`, `loop_invariant`).
    pub fn parse(s: &str) -> Option<ClauseKind> {
        let s: String = s
            .trim()
            .to_ascii_lowercase()
            .split(|c: char| c == '_' || c == '-' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        [
            ClauseKind::Requires,
            ClauseKind::Ensures,
            ClauseKind::Assigns,
            ClauseKind::LoopInvariant,
            ClauseKind::LoopAssigns,
            ClauseKind::LoopVariant,
        ]
        .into_iter()
        .find(|k| k.keyword() == s)
    }

    /// True for kinds that take a name (`ensures name: P`), which is how their goals
    /// are told apart.
    pub fn labelled(self) -> bool {
        matches!(
            self,
            ClauseKind::Requires | ClauseKind::Ensures | ClauseKind::LoopInvariant
        )
    }

    /// True for loop kinds.
    pub fn is_loop(self) -> bool {
        ClauseKind::LOOP.contains(&self)
    }
}

/// A sanitized clause: a kind and a single-line expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clause {
    /// The kind.
    pub kind: ClauseKind,
    /// The predicate, location list or term, on one line, without a final `;`.
    pub expr: String,
}

impl Clause {
    /// The clause text to insert, with `label` for labelled kinds.
    pub fn text(&self, label: Option<&str>) -> String {
        match label {
            Some(l) if self.kind.labelled() => {
                format!("{} {l}: {}", self.kind.keyword(), self.expr)
            }
            _ => format!("{} {}", self.kind.keyword(), self.expr),
        }
    }

    /// A lexical key for removing duplicates (kind and expression with all
    /// whitespace removed).
    pub fn key(&self) -> String {
        let e: String = self.expr.chars().filter(|c| !c.is_whitespace()).collect();
        format!("{}|{e}", self.kind.keyword())
    }
}

const MAX_EXPR: usize = 400;

/// Words that may not appear in an expression: they would start another clause, a
/// declaration or ghost code, or they are C statements.
const FORBIDDEN_WORDS: &[&str] = &[
    "requires",
    "ensures",
    "assigns",
    "loop",
    "invariant",
    "variant",
    "behavior",
    "behaviors",
    "assumes",
    "decreases",
    "terminates",
    "allocates",
    "frees",
    "exits",
    "breaks",
    "continues",
    "returns",
    "complete",
    "disjoint",
    "ghost",
    "axiomatic",
    "predicate",
    "lemma",
    "logic",
    "axiom",
    "assert",
    "check",
    "admit",
    "return",
    "while",
    "goto",
    "switch",
    "case",
];

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\\'))
        .filter(|w| !w.is_empty())
}

/// Checks one answer entry and builds the clause, or says why it is refused.
/// `allowed` are the kinds the point of interest takes.
pub fn sanitize(kind: &str, expr: &str, allowed: &[ClauseKind]) -> Result<Clause, String> {
    let kind = ClauseKind::parse(kind).ok_or_else(|| format!("unknown clause kind {kind:?}"))?;
    if !allowed.contains(&kind) {
        return Err(format!(
            "`{}` does not belong at this point (allowed: {})",
            kind.keyword(),
            allowed
                .iter()
                .map(|k| k.keyword())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let expr = restore_escapes(expr);
    if expr
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err("the expression contains control characters".into());
    }
    let mut e: String = expr.split_whitespace().collect::<Vec<_>>().join(" ");
    // Tolerate the keyword repeated in the expression (also as `\\ensures`), and a
    // final `;`.
    if let Some(rest) = e
        .strip_prefix('\\')
        .unwrap_or(&e)
        .strip_prefix(kind.keyword())
    {
        if rest.starts_with(' ') {
            e = rest.trim().to_string();
        }
    }
    let e = e.trim_end_matches(';').trim().to_string();
    if e.is_empty() {
        return Err("the expression is empty".into());
    }
    if e.len() > MAX_EXPR {
        return Err(format!("the expression is longer than {MAX_EXPR} bytes"));
    }
    for bad in ["*/", "/*", "//", "@"] {
        if e.contains(bad) {
            return Err(format!(
                "`{bad}` is not allowed: it would open or close a comment or an annotation"
            ));
        }
    }
    if e.contains('{') || e.contains('}') {
        return Err("braces are not allowed: answer with ACSL clauses only, never C code".into());
    }
    if e.contains('#') {
        return Err("`#` is not allowed: answer with ACSL clauses only".into());
    }
    if let Some(w) = words(&e).find(|w| FORBIDDEN_WORDS.contains(w)) {
        return Err(format!(
            "`{w}` is not allowed inside an expression: give exactly one clause per entry, without C code"
        ));
    }
    let binders = ["\\forall", "\\exists", "\\let"]
        .iter()
        .map(|b| e.matches(b).count())
        .sum::<usize>();
    if e.matches(';').count() > binders {
        return Err("`;` outside a quantifier: give exactly one clause per entry".into());
    }
    if kind == ClauseKind::Requires {
        let flat: String = e.chars().filter(|c| !c.is_whitespace()).collect();
        if matches!(flat.as_str(), "\\false" | "false" | "0" | "(\\false)") {
            return Err("a contradictory precondition makes every proof vacuous".into());
        }
    }
    Ok(Clause { kind, expr: e })
}

/// Undoes JSON escapes a model produced by writing ACSL's backslashes unescaped:
/// `"\result"` in JSON is a carriage return followed by `esult`, `"\forall"` a form
/// feed and `orall`, `"\nothing"` a line break and `othing`. ACSL expressions never
/// contain these control characters, so they are turned back into the backslash and
/// letter; a line break or tab not followed by such a name stays whitespace.
pub fn restore_escapes(expr: &str) -> String {
    let mut out = String::with_capacity(expr.len() + 8);
    for (i, c) in expr.char_indices() {
        let rest = &expr[i + c.len_utf8()..];
        let letter_follows = rest.starts_with(|n: char| n.is_ascii_alphabetic());
        match c {
            '\u{c}' => out.push_str("\\f"),
            '\u{8}' => out.push_str("\\b"),
            '\r' if letter_follows => out.push_str("\\r"),
            '\t' if letter_follows => out.push_str("\\t"),
            '\n' if ["othing", "ull", "umof"]
                .iter()
                .any(|w| rest.starts_with(w)) =>
            {
                out.push_str("\\n")
            }
            _ => out.push(c),
        }
    }
    out
}

/// Splits the body of an ACSL annotation comment (`/*@ ... */`) into clauses
/// (keyword and expression). `;` inside quantifiers does not split. Clauses of
/// other kinds (behaviors, `decreases`, ...) come back with `None` as kind.
pub fn split_annotation(comment: &str) -> Vec<(Option<ClauseKind>, String)> {
    let body = comment.trim();
    let body = body
        .strip_prefix("/*@")
        .or_else(|| body.strip_prefix("//@"))
        .unwrap_or(body);
    let body = body.strip_suffix("*/").unwrap_or(body);
    let starts_clause = |s: &str| {
        let first = s.split_whitespace().next().unwrap_or("");
        let first = first.split(':').next().unwrap_or("");
        matches!(
            first,
            "requires"
                | "ensures"
                | "assigns"
                | "loop"
                | "behavior"
                | "assumes"
                | "decreases"
                | "terminates"
                | "complete"
                | "disjoint"
                | "allocates"
                | "frees"
        )
    };
    let mut pieces: Vec<String> = Vec::new();
    for p in body.split(';') {
        let t = p.trim_start_matches(|c: char| c.is_whitespace() || c == '@');
        if t.trim().is_empty() {
            continue;
        }
        if starts_clause(t) || pieces.is_empty() {
            pieces.push(t.to_string());
        } else if let Some(last) = pieces.last_mut() {
            last.push(';');
            last.push_str(p);
        }
    }
    pieces
        .into_iter()
        .map(|p| {
            let p: String = p.split_whitespace().collect::<Vec<_>>().join(" ");
            for k in [
                ClauseKind::LoopInvariant,
                ClauseKind::LoopAssigns,
                ClauseKind::LoopVariant,
                ClauseKind::Requires,
                ClauseKind::Ensures,
                ClauseKind::Assigns,
            ] {
                if let Some(rest) = p.strip_prefix(k.keyword()) {
                    if rest.starts_with(' ') {
                        return (Some(k), strip_label(rest.trim()).to_string());
                    }
                }
            }
            (None, p)
        })
        .collect()
}

/// Removes a leading `name:` label (not a `::` or a ternary's `:`).
fn strip_label(e: &str) -> &str {
    if let Some((l, rest)) = e.split_once(':') {
        let l = l.trim();
        if !l.is_empty()
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !rest.starts_with(':')
        {
            return rest.trim();
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitizes() {
        let c = sanitize("ensures", "  \\result >= 0 ;", &ClauseKind::CONTRACT).unwrap();
        assert_eq!(c.text(Some("vera_s1")), "ensures vera_s1: \\result >= 0");
        let c = sanitize(
            "loop_invariant",
            "loop invariant 0 <= i\n <= n",
            &ClauseKind::LOOP,
        )
        .unwrap();
        assert_eq!(c.expr, "0 <= i <= n");
        let c = sanitize("assigns", "\\assigns \\nothing", &ClauseKind::CONTRACT).unwrap();
        assert_eq!(c.expr, "\\nothing");
        assert!(sanitize(
            "ensures",
            "\\forall integer k; 0 <= k < n ==> a[k] == 0",
            &ClauseKind::CONTRACT
        )
        .is_ok());
        for bad in [
            "\\true */ int x; /*@",
            "\\true; ensures \\false",
            "x == 1 { return 0; }",
            "\\true // hidden",
            "\\result == 0; assigns \\nothing",
        ] {
            assert!(
                sanitize("ensures", bad, &ClauseKind::CONTRACT).is_err(),
                "{bad}"
            );
        }
        assert!(sanitize("requires", "\\false", &ClauseKind::CONTRACT).is_err());
        // Backslashes the model forgot to escape in JSON.
        let c = sanitize(
            "ensures",
            "\u{c}orall integer k; 0 <= k < n ==> \result != \null",
            &ClauseKind::CONTRACT,
        )
        .unwrap();
        assert_eq!(
            c.expr,
            "\\forall integer k; 0 <= k < n ==> \\result != \\null"
        );
        let c = sanitize("assigns", "\nothing", &ClauseKind::CONTRACT).unwrap();
        assert_eq!(c.expr, "\\nothing");
        let c = sanitize("ensures", "x >= 0 &&\n  y >= 0", &ClauseKind::CONTRACT).unwrap();
        assert_eq!(c.expr, "x >= 0 && y >= 0");
        assert!(sanitize("loop invariant", "i >= 0", &ClauseKind::CONTRACT).is_err());
        assert!(sanitize("behavior", "x", &ClauseKind::CONTRACT).is_err());
    }

    #[test]
    fn splits_annotations() {
        let c = split_annotation(
            "/*@ requires n >= 0 && \\valid_read(a + (0 .. n-1));\n    assigns \\nothing;\n    ensures found: \\forall integer k; 0 <= k < n ==> a[k] != x;\n*/",
        );
        assert_eq!(c.len(), 3);
        assert_eq!(c[1], (Some(ClauseKind::Assigns), "\\nothing".into()));
        assert_eq!(
            c[2],
            (
                Some(ClauseKind::Ensures),
                "\\forall integer k; 0 <= k < n ==> a[k] != x".into()
            )
        );
        let l = split_annotation("/*@ loop invariant 0 <= i <= n;\n loop variant n - i; */");
        assert_eq!(l[1], (Some(ClauseKind::LoopVariant), "n - i".into()));
    }
}

//! Mutation operators for C, applied through the syntax tree: each mutant replaces
//! one byte range of the original text (an operator token, a constant, a
//! condition, a statement, a returned expression, a loop bound) and leaves every
//! other byte, the ACSL comments included, as it was.

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

use crate::front::{line_of, CFile, ItemKind};

/// A mutation operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `+ - * / %` replaced by another arithmetic operator.
    Arithmetic,
    /// `< <= > >= == !=` replaced by another relational operator.
    Relational,
    /// `&&` and `||` swapped.
    Logical,
    /// Compound assignments (`+=`, ...) and `++`/`--` replaced.
    Assignment,
    /// An integer constant `c` replaced by `c + 1`.
    ConstantPlusOne,
    /// An integer constant `c` replaced by `c - 1`.
    ConstantMinusOne,
    /// An integer constant replaced by `0`.
    ConstantZero,
    /// The condition of an `if`, a loop or `?:` negated.
    ConditionNegation,
    /// An expression statement deleted.
    StatementDeletion,
    /// A returned value replaced (`0`, or the value plus one).
    ReturnValue,
    /// The bound of a loop condition moved by one.
    LoopBound,
}

impl Operator {
    /// Every operator.
    pub const ALL: [Operator; 11] = [
        Operator::Arithmetic,
        Operator::Relational,
        Operator::Logical,
        Operator::Assignment,
        Operator::ConstantPlusOne,
        Operator::ConstantMinusOne,
        Operator::ConstantZero,
        Operator::ConditionNegation,
        Operator::StatementDeletion,
        Operator::ReturnValue,
        Operator::LoopBound,
    ];
}

/// One mutant: a byte range of the original text and its replacement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// Position in the list of mutants of the file.
    pub id: usize,
    /// The operator.
    pub operator: Operator,
    /// The function mutated.
    pub function: String,
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// The replaced text.
    pub original: String,
    /// The new text.
    pub replacement: String,
}

impl Mutant {
    fn fits(&self, text: &str) -> bool {
        self.start <= self.end
            && self.end <= text.len()
            && text.is_char_boundary(self.start)
            && text.is_char_boundary(self.end)
    }

    /// The mutated text (the text unchanged if the mutant's range does not fit it).
    pub fn apply(&self, text: &str) -> String {
        if !self.fits(text) {
            return text.to_string();
        }
        let mut s = String::with_capacity(text.len() + self.replacement.len());
        s.push_str(&text[..self.start]);
        s.push_str(&self.replacement);
        s.push_str(&text[self.end..]);
        s
    }

    /// A two-line diff of the mutated line(s): `-` original, `+` mutant.
    pub fn diff(&self, text: &str) -> String {
        if !self.fits(text) {
            return String::new();
        }
        let ls = text[..self.start].rfind('\n').map(|p| p + 1).unwrap_or(0);
        let le = text[self.end..]
            .find('\n')
            .map(|p| self.end + p)
            .unwrap_or(text.len());
        let before = &text[ls..le];
        let after = format!(
            "{}{}{}",
            &text[ls..self.start],
            self.replacement,
            &text[self.end..le]
        );
        let mut d = format!("@@ line {} ({:?}) @@\n", self.line, self.operator);
        for l in before.lines() {
            d.push_str(&format!("-{l}\n"));
        }
        for l in after.lines() {
            d.push_str(&format!("+{l}\n"));
        }
        d
    }
}

fn arithmetic(op: &str) -> &'static [&'static str] {
    match op {
        "+" => &["-", "*"],
        "-" => &["+"],
        "*" => &["+", "/"],
        "/" => &["*", "%"],
        "%" => &["/"],
        _ => &[],
    }
}

fn relational(op: &str) -> &'static [&'static str] {
    match op {
        "<" => &["<=", ">"],
        "<=" => &["<", ">="],
        ">" => &[">=", "<"],
        ">=" => &[">", "<="],
        "==" => &["!="],
        "!=" => &["=="],
        _ => &[],
    }
}

fn assignment(op: &str) -> &'static [&'static str] {
    match op {
        "+=" => &["-="],
        "-=" => &["+="],
        "*=" => &["/="],
        "/=" => &["*="],
        "%=" => &["/="],
        "++" => &["--"],
        "--" => &["++"],
        _ => &[],
    }
}

fn is_relational(op: &str) -> bool {
    matches!(op, "<" | "<=" | ">" | ">=" | "==" | "!=")
}

/// A decimal or hexadecimal integer literal's value and suffix.
fn integer_literal(s: &str) -> Option<(i128, &str)> {
    let digits_end = s.find(['u', 'U', 'l', 'L']).unwrap_or(s.len());
    let (num, suffix) = s.split_at(digits_end);
    let v = if let Some(h) = num.strip_prefix("0x").or_else(|| num.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else if num.len() > 1 && num.starts_with('0') {
        i128::from_str_radix(&num[1..], 8).ok()?
    } else {
        num.parse::<i128>().ok()?
    };
    Some((v, suffix))
}

struct Gen<'a> {
    text: &'a str,
    function: String,
    wanted: &'a [Operator],
    out: Vec<Mutant>,
}

impl Gen<'_> {
    fn push(&mut self, operator: Operator, start: usize, end: usize, replacement: String) {
        if !self.wanted.contains(&operator) {
            return;
        }
        let original = self.text[start..end].to_string();
        if original == replacement {
            return;
        }
        self.out.push(Mutant {
            id: 0,
            operator,
            function: self.function.clone(),
            start,
            end,
            line: line_of(self.text, start),
            original,
            replacement,
        });
    }

    fn node_text(&self, n: Node<'_>) -> &str {
        &self.text[n.start_byte()..n.end_byte()]
    }

    fn negate(&mut self, cond: Node<'_>) {
        // `(c)` of if/while/do keeps its parentheses; a bare for/?: condition is wrapped.
        if cond.kind() == "parenthesized_expression" {
            if let Some(inner) = cond.named_child(0) {
                let t = self.node_text(inner).to_string();
                self.push(
                    Operator::ConditionNegation,
                    inner.start_byte(),
                    inner.end_byte(),
                    format!("!({t})"),
                );
            }
        } else {
            let t = self.node_text(cond).to_string();
            self.push(
                Operator::ConditionNegation,
                cond.start_byte(),
                cond.end_byte(),
                format!("!({t})"),
            );
        }
    }

    fn loop_bound(&mut self, cond: Node<'_>) {
        let mut c = cond;
        while c.kind() == "parenthesized_expression" {
            match c.named_child(0) {
                Some(n) => c = n,
                None => return,
            }
        }
        if c.kind() != "binary_expression" {
            return;
        }
        let Some(op) = c.child_by_field_name("operator") else {
            return;
        };
        if !matches!(self.node_text(op), "<" | "<=" | ">" | ">=") {
            return;
        }
        let Some(right) = c.child_by_field_name("right") else {
            return;
        };
        let r = self.node_text(right).to_string();
        for delta in ["+ 1", "- 1"] {
            self.push(
                Operator::LoopBound,
                right.start_byte(),
                right.end_byte(),
                format!("({r}) {delta}"),
            );
        }
    }

    fn visit(&mut self, root: Node<'_>) {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "comment" => continue,
                "binary_expression" => {
                    if let Some(op) = n.child_by_field_name("operator") {
                        let o = self.node_text(op).to_string();
                        let (a, b) = (op.start_byte(), op.end_byte());
                        for r in arithmetic(&o) {
                            self.push(Operator::Arithmetic, a, b, (*r).into());
                        }
                        if is_relational(&o) {
                            for r in relational(&o) {
                                self.push(Operator::Relational, a, b, (*r).into());
                            }
                        }
                        match o.as_str() {
                            "&&" => self.push(Operator::Logical, a, b, "||".into()),
                            "||" => self.push(Operator::Logical, a, b, "&&".into()),
                            _ => {}
                        }
                    }
                }
                "assignment_expression" | "update_expression" => {
                    if let Some(op) = n.child_by_field_name("operator") {
                        let o = self.node_text(op).to_string();
                        for r in assignment(&o) {
                            self.push(
                                Operator::Assignment,
                                op.start_byte(),
                                op.end_byte(),
                                (*r).into(),
                            );
                        }
                    }
                }
                "number_literal" => {
                    let t = self.node_text(n).to_string();
                    if let Some((v, suffix)) = integer_literal(&t) {
                        let (a, b) = (n.start_byte(), n.end_byte());
                        self.push(
                            Operator::ConstantPlusOne,
                            a,
                            b,
                            format!("{}{suffix}", v + 1),
                        );
                        if v > 0 {
                            self.push(
                                Operator::ConstantMinusOne,
                                a,
                                b,
                                format!("{}{suffix}", v - 1),
                            );
                        } else if suffix.is_empty() {
                            self.push(Operator::ConstantMinusOne, a, b, "(-1)".into());
                        }
                        if v != 0 {
                            self.push(Operator::ConstantZero, a, b, format!("0{suffix}"));
                        }
                    }
                }
                "if_statement" | "while_statement" | "do_statement" => {
                    if let Some(c) = n.child_by_field_name("condition") {
                        self.negate(c);
                        if n.kind() != "if_statement" {
                            self.loop_bound(c);
                        }
                    }
                }
                "for_statement" => {
                    if let Some(c) = n.child_by_field_name("condition") {
                        self.negate(c);
                        self.loop_bound(c);
                    }
                }
                "conditional_expression" => {
                    if let Some(c) = n.child_by_field_name("condition") {
                        self.negate(c);
                    }
                }
                "expression_statement" if n.named_child_count() > 0 => {
                    self.push(
                        Operator::StatementDeletion,
                        n.start_byte(),
                        n.end_byte(),
                        ";".into(),
                    );
                }
                "return_statement" => {
                    if let Some(e) = n.named_child(0) {
                        let t = self.node_text(e).to_string();
                        if e.kind() != "number_literal" {
                            self.push(
                                Operator::ReturnValue,
                                e.start_byte(),
                                e.end_byte(),
                                "0".into(),
                            );
                            self.push(
                                Operator::ReturnValue,
                                e.start_byte(),
                                e.end_byte(),
                                format!("({t}) + 1"),
                            );
                        }
                    }
                }
                _ => {}
            }
            let mut c = n.walk();
            let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
}

/// The mutants of the bodies of `functions` (all function definitions when `None`)
/// with the given operators, in source order.
pub fn mutants(file: &CFile, functions: Option<&[String]>, operators: &[Operator]) -> Vec<Mutant> {
    let Some(tree) = parse_tree(&file.text) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut bodies = Vec::new();
    for item in &file.items {
        if item.kind != ItemKind::Function {
            continue;
        }
        let Some(body) = item.body else { continue };
        if let Some(node) = root.descendant_for_byte_range(body.start, body.end) {
            bodies.push((item.name.clone(), node));
        }
    }
    mutate_bodies(&file.text, bodies, functions, operators)
}

/// The mutants of a source file's text as written, macros unexpanded: every
/// function definition, also those inside `#if`/`#ifdef` blocks (an include
/// guard; the branch a build does not select is found equivalent by the
/// compiler), and the names of the functions defined there.
pub fn source_mutants(
    text: &str,
    functions: Option<&[String]>,
    operators: &[Operator],
) -> (Vec<Mutant>, std::collections::BTreeSet<String>) {
    let Some(tree) = parse_tree(text) else {
        return (Vec::new(), Default::default());
    };
    let mut bodies = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" {
            let name = n
                .child_by_field_name("declarator")
                .and_then(|d| declared_name(d, text));
            if let (Some(name), Some(body)) = (name, n.child_by_field_name("body")) {
                bodies.push((name, body));
            }
            continue;
        }
        if n.kind() == "translation_unit" || n.kind().starts_with("preproc_") {
            let mut c = n.walk();
            let kids: Vec<Node<'_>> = n.named_children(&mut c).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    let defined = bodies.iter().map(|(name, _)| name.clone()).collect();
    (mutate_bodies(text, bodies, functions, operators), defined)
}

/// The name a declarator declares (`f` of `*f(int a)`).
fn declared_name(d: Node<'_>, text: &str) -> Option<String> {
    match d.kind() {
        "identifier" => Some(text[d.start_byte()..d.end_byte()].to_string()),
        _ => d
            .child_by_field_name("declarator")
            .and_then(|k| declared_name(k, text)),
    }
}

fn parse_tree(text: &str) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_c::LANGUAGE.into()).ok()?;
    parser.parse(text, None)
}

/// The mutants of function bodies (name, body node), numbered in source order.
fn mutate_bodies(
    text: &str,
    bodies: Vec<(String, Node<'_>)>,
    functions: Option<&[String]>,
    operators: &[Operator],
) -> Vec<Mutant> {
    let mut all = Vec::new();
    for (name, node) in bodies {
        if let Some(fs) = functions {
            if !fs.iter().any(|f| f == &name) {
                continue;
            }
        }
        let mut g = Gen {
            text,
            function: name,
            wanted: operators,
            out: Vec::new(),
        };
        g.visit(node);
        g.out.sort_by_key(|m| (m.start, m.end, m.operator));
        all.extend(g.out);
    }
    for (i, m) in all.iter_mut().enumerate() {
        m.id = i;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::parse_c;

    #[test]
    fn functions_inside_conditional_blocks_are_mutated() {
        let text = "#ifndef H\n#define H\nstatic inline int inc(int a) { return a + 1; }\n#ifdef X\nint *p(int **q) { return *q; }\n#endif\n#endif\n";
        let (ms, defined) = source_mutants(text, None, &Operator::ALL);
        assert_eq!(
            defined.into_iter().collect::<Vec<_>>(),
            ["inc".to_string(), "p".to_string()]
        );
        assert!(ms
            .iter()
            .any(|m| m.function == "inc" && m.replacement == "-"));
        // Only the functions asked for, numbered from zero.
        let (only, _) = source_mutants(text, Some(&["p".to_string()]), &Operator::ALL);
        assert!(only.iter().all(|m| m.function == "p"));
        assert!(only.iter().enumerate().all(|(i, m)| m.id == i));
        assert!(!only.is_empty());
    }

    #[test]
    fn literals() {
        assert_eq!(integer_literal("10"), Some((10, "")));
        assert_eq!(integer_literal("0x1fU"), Some((31, "U")));
        assert_eq!(integer_literal("1.5"), None);
    }

    #[test]
    fn mutants_leave_comments_alone() {
        let src = "/*@ ensures \\result == x + 1; */\nint f(int x) { /* x + 1 */ return x + 1; }\n";
        let f = parse_c(src).unwrap();
        let ms = mutants(&f, None, &Operator::ALL);
        assert!(!ms.is_empty());
        for m in &ms {
            assert!(m.start > src.find("{").unwrap());
            let t = m.apply(src);
            assert!(t.starts_with("/*@ ensures \\result == x + 1; */"));
            assert!(t.contains("/* x + 1 */"));
        }
        assert!(ms
            .iter()
            .any(|m| m.operator == Operator::Arithmetic && m.replacement == "-"));
        assert!(ms
            .iter()
            .any(|m| m.operator == Operator::ReturnValue && m.replacement == "0"));
    }
}

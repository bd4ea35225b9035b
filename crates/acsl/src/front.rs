//! The C front end: tree-sitter-c turns a translation unit into top-level items
//! (functions, prototypes, user types, globals, global ACSL annotations), each with
//! the byte span it occupies in the original text, the ACSL contract attached to it,
//! the names it defines and the names it refers to. Functions also list their loops
//! with the loop annotations attached to them.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

/// A byte range in the original text, with the 1-based line where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
}

impl Span {
    fn of(node: Node<'_>) -> Span {
        Span {
            start: node.start_byte(),
            end: node.end_byte(),
            line: node.start_position().row + 1,
        }
    }

    /// The text this span covers in `text`.
    pub fn text<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.start..self.end).unwrap_or("")
    }
}

/// What a top-level item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A function definition (with a body).
    Function,
    /// A function declaration without a body.
    Prototype,
    /// A `typedef`, `struct`, `union` or `enum` declaration.
    Type,
    /// A global variable declaration.
    Global,
    /// A global ACSL annotation (`predicate`, `logic`, `axiomatic`, `lemma`, ...).
    Logic,
    /// A preprocessor directive (`#include`, `#define`, ...).
    Preprocessor,
}

/// The kind of a loop statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopKind {
    /// `for (...; ...; ...)`.
    For,
    /// `while (...)`.
    While,
    /// `do ... while (...)`.
    DoWhile,
}

/// One loop inside a function body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    /// Position of this loop among the function's loops in post-order (inner loops
    /// before the loops that contain them).
    pub index: usize,
    /// `for`, `while` or `do`.
    pub kind: LoopKind,
    /// The loop statement.
    pub span: Span,
    /// The ACSL loop annotation right before the loop, if any.
    pub annotation: Option<Span>,
    /// Nesting depth inside the function (0 for an outermost loop).
    pub depth: usize,
    /// Index of the innermost enclosing loop, if any.
    pub parent: Option<usize>,
}

/// One top-level declaration or definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// What the item is.
    pub kind: ItemKind,
    /// The main name: the function, the first declared global, the typedef name or
    /// the tag (`struct point`); empty for preprocessor lines.
    pub name: String,
    /// All names the item defines (enumerators, several globals, a typedef and its tag).
    pub defines: Vec<String>,
    /// Names the item refers to: called functions, used globals, used types. Local
    /// variables and parameters are left out.
    pub refs: BTreeSet<String>,
    /// The declaration itself, without its contract.
    pub span: Span,
    /// The ACSL contract comment right before the item, if any.
    pub contract: Option<Span>,
    /// The function body (`{ ... }`), for functions.
    pub body: Option<Span>,
    /// Loops of a function, in post-order.
    pub loops: Vec<Loop>,
}

impl Item {
    /// An item that has no contract and no body: all but a function definition.
    fn declared(
        kind: ItemKind,
        name: String,
        defines: Vec<String>,
        refs: BTreeSet<String>,
        span: Span,
    ) -> Item {
        Item {
            kind,
            name,
            defines,
            refs,
            span,
            contract: None,
            body: None,
            loops: Vec::new(),
        }
    }

    /// The span including the attached contract.
    pub fn full_span(&self) -> Span {
        match self.contract {
            Some(c) => Span {
                start: c.start,
                end: self.span.end,
                line: c.line,
            },
            None => self.span,
        }
    }
}

/// One problem found while parsing C.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (bytes).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The file, when it differs from [`Diagnostics::file`] (a header of a
    /// preprocessed program).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
}

/// Several parse problems, reported together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// The file, when the text came from one.
    pub file: Option<PathBuf>,
    /// The problems, in source order.
    pub items: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self
            .file
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "<input>".into());
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let file = d
                .file
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| file.clone());
            match (d.line, d.column) {
                (0, _) => write!(f, "{file}: {}", d.message)?,
                (l, 0) => write!(f, "{file}:{l}: {}", d.message)?,
                (l, c) => write!(f, "{file}:{l}:{c}: {}", d.message)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// A parsed C file: the original text and its top-level items in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CFile {
    /// Where the text came from, if a file.
    pub path: Option<PathBuf>,
    /// The original text, byte for byte.
    pub text: String,
    /// Top-level items in source order.
    pub items: Vec<Item>,
}

impl CFile {
    /// The function definition called `name`.
    pub fn function(&self, name: &str) -> Option<&Item> {
        self.items
            .iter()
            .find(|i| i.kind == ItemKind::Function && i.name == name)
    }

    /// All function definitions, in source order.
    pub fn functions(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.kind == ItemKind::Function)
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        line_of(&self.text, offset)
    }
}

pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Where [`parse_c`] reads from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// Read the file at this path.
    Path(&'a Path),
    /// Parse this text.
    Text(&'a str),
}

impl<'a> From<&'a Path> for Source<'a> {
    fn from(p: &'a Path) -> Self {
        Source::Path(p)
    }
}

impl<'a> From<&'a PathBuf> for Source<'a> {
    fn from(p: &'a PathBuf) -> Self {
        Source::Path(p.as_path())
    }
}

impl<'a> From<&'a str> for Source<'a> {
    fn from(t: &'a str) -> Self {
        Source::Text(t)
    }
}

/// Largest C text accepted (bytes).
pub const MAX_SOURCE_BYTES: usize = 16 * 1024 * 1024;

/// Parse a C file or text. Syntax errors come back as [`Diagnostics`], all of them.
pub fn parse_c<'a>(source: impl Into<Source<'a>>) -> Result<CFile, Diagnostics> {
    match source.into() {
        Source::Path(p) => {
            // Through `safefile`: bounded, and remembered as an input no output may
            // replace.
            let text = safefile::read_text(p).map_err(|e| {
                let (line, column, message) = match e {
                    safefile::SafeFileError::NotUtf8 { line, column, .. } => (
                        line,
                        column,
                        "not UTF-8 text (save the file as UTF-8)".into(),
                    ),
                    safefile::SafeFileError::Read { error, .. } => {
                        (1, 1, format!("cannot read the file: {error}"))
                    }
                    other => (0, 0, other.to_string()),
                };
                Diagnostics {
                    file: Some(p.to_path_buf()),
                    items: vec![Diagnostic {
                        line,
                        column,
                        message,
                        file: None,
                    }],
                }
            })?;
            parse_text(Some(p.to_path_buf()), text, true)
        }
        Source::Text(t) => parse_text(None, t.to_string(), true),
    }
}

/// Parse preprocessed C: every macro has been expanded, so a top-level
/// `NAME(args)` without a semicolon is an undefined macro, an error (which
/// [`parse_c`], reading source text, accepts as an invocation).
pub fn parse_preprocessed(text: &str) -> Result<CFile, Diagnostics> {
    parse_text(None, text.to_string(), false)
}

fn parse_text(
    path: Option<PathBuf>,
    text: String,
    macro_invocations: bool,
) -> Result<CFile, Diagnostics> {
    let fail = |path: Option<PathBuf>, message: String| Diagnostics {
        file: path,
        items: vec![Diagnostic {
            line: 1,
            column: 1,
            message,
            file: None,
        }],
    };
    if text.len() > MAX_SOURCE_BYTES {
        return Err(fail(
            path,
            format!("the file is larger than {MAX_SOURCE_BYTES} bytes"),
        ));
    }
    let mut parser = Parser::new();
    if let Err(e) = parser.set_language(&tree_sitter_c::LANGUAGE.into()) {
        return Err(fail(path, format!("the C grammar cannot be loaded: {e}")));
    }
    let Some(tree) = parser.parse(&text, None) else {
        return Err(fail(path, "the C parser gave up".into()));
    };
    let root = tree.root_node();
    if root.has_error() && !(macro_invocations && only_macro_invocations(root)) {
        let mut items = Vec::new();
        collect_errors(root, &text, macro_invocations, &mut items);
        if items.is_empty() {
            items.push(Diagnostic {
                line: 1,
                column: 1,
                message: "syntax error".into(),
                file: None,
            });
        }
        return Err(Diagnostics { file: path, items });
    }
    let items = top_level_items(root, &text);
    Ok(CFile { path, text, items })
}

/// True when every syntax error of the tree is a top-level macro invocation
/// without a semicolon (`DEFINE_HANDLER(x)` on a line of its own): the
/// preprocessor expands those into declarations, so they are not errors of the
/// C a compiler sees. Such an invocation is kept verbatim, as an unnamed item.
fn only_macro_invocations(root: Node<'_>) -> bool {
    let mut c = root.walk();
    let top: Vec<Node<'_>> = root.children(&mut c).collect();
    top.into_iter().all(|k| {
        if !k.has_error() {
            return true;
        }
        if k.kind() != "expression_statement" || k.is_error() {
            return false;
        }
        is_macro_invocation(k)
    })
}

/// A top-level `NAME(args)` without its semicolon (comments may follow it: the
/// parser puts them inside, before the missing `;`).
fn is_macro_invocation(k: Node<'_>) -> bool {
    if k.kind() != "expression_statement" {
        return false;
    }
    let mut kc = k.walk();
    let kids: Vec<Node<'_>> = k
        .children(&mut kc)
        .filter(|n| n.kind() != "comment")
        .collect();
    matches!(kids.as_slice(), [call, semi]
        if call.kind() == "call_expression"
            && !call.has_error()
            && semi.is_missing()
            && semi.kind() == ";")
}

fn collect_errors(node: Node<'_>, text: &str, macro_invocations: bool, out: &mut Vec<Diagnostic>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let top = n.parent().is_some_and(|p| p.kind() == "translation_unit");
        if macro_invocations && top && is_macro_invocation(n) {
            continue;
        }
        if n.is_error() || n.is_missing() {
            // The parser's recovery often wraps whole items that parsed fine
            // (every declaration before the broken one) into the error node:
            // report where the first piece that is not such an item starts.
            let mut c = n.walk();
            let first_bad = n.children(&mut c).find(|k| {
                k.has_error()
                    || !matches!(
                        k.kind(),
                        "declaration"
                            | "function_definition"
                            | "type_definition"
                            | "comment"
                            | "struct_specifier"
                            | "union_specifier"
                            | "enum_specifier"
                            | ";"
                    ) && !k.kind().starts_with("preproc")
            });
            let n = match first_bad {
                Some(k) if n.is_error() && !k.has_error() => k,
                _ => n,
            };
            let p = n.start_position();
            let message = if n.is_missing() {
                format!("syntax error: missing `{}`", n.kind())
            } else {
                let snippet: String = Span::of(n)
                    .text(text)
                    .chars()
                    .take(30)
                    .map(|c| if c.is_whitespace() { ' ' } else { c })
                    .collect();
                format!("syntax error near `{}`", snippet.trim())
            };
            out.push(Diagnostic {
                line: p.row + 1,
                column: p.column + 1,
                message,
                file: None,
            });
            if out.len() >= 20 {
                return;
            }
            continue;
        }
        if n.has_error() {
            let mut c = n.walk();
            let kids: Vec<_> = n.children(&mut c).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    out.sort_by_key(|d| (d.line, d.column));
}

pub(crate) fn is_acsl_comment(s: &str) -> bool {
    s.starts_with("/*@") || s.starts_with("//@")
}

fn only_space_between(text: &str, a: usize, b: usize) -> bool {
    text.get(a..b)
        .map(|s| s.chars().all(char::is_whitespace))
        .unwrap_or(false)
}

/// True when only white space and the plain (non-ACSL) comments `skipped`
/// separate `a` from `b`: Frama-C attaches a contract across ordinary comments.
fn only_space_or_comments(text: &str, a: usize, b: usize, skipped: &[Span]) -> bool {
    let mut pos = a;
    for c in skipped.iter().filter(|c| c.start >= a && c.end <= b) {
        if !only_space_between(text, pos, c.start) {
            return false;
        }
        pos = c.end;
    }
    only_space_between(text, pos, b)
}

fn top_level_items(root: Node<'_>, text: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut cursor = root.walk();
    let mut children: Vec<Node<'_>> = Vec::new();
    for n in root.children(&mut cursor) {
        children.push(n);
        // The comments the parser put inside a macro invocation (a contract
        // for the next function) are top-level comments.
        if is_macro_invocation(n) {
            let mut c = n.walk();
            children.extend(n.children(&mut c).filter(|k| k.kind() == "comment"));
        }
    }
    let mut pending: Option<Span> = None;
    // Plain comments seen since the pending annotation.
    let mut skipped: Vec<Span> = Vec::new();
    for node in children {
        let kind = node.kind();
        if kind == "comment" {
            let s = Span::of(node);
            if is_acsl_comment(s.text(text)) {
                if let Some(p) = pending.take() {
                    items.push(logic_item(p, text));
                }
                pending = Some(s);
                skipped.clear();
            } else {
                skipped.push(s);
            }
            continue;
        }
        // A contract is attached only when nothing but white space and plain
        // comments separate it from the declaration.
        let gap_ok = |p: Span| only_space_or_comments(text, p.end, node.start_byte(), &skipped);
        let contract = match pending.take() {
            Some(p) if gap_ok(p) => Some(p),
            Some(p) => {
                items.push(logic_item(p, text));
                None
            }
            None => None,
        };
        let attach = |mut item: Item| {
            item.contract = contract;
            item
        };
        match kind {
            "function_definition" => items.push(attach(function_item(node, text))),
            "declaration" => items.push(attach(declaration_item(node, text))),
            "type_definition" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
                items.push(attach(type_item(node, text)))
            }
            k if k.starts_with("preproc") => {
                if let Some(c) = contract {
                    items.push(logic_item(c, text));
                }
                items.push(Item::declared(
                    ItemKind::Preprocessor,
                    String::new(),
                    preproc_defines(node, text),
                    BTreeSet::new(),
                    Span::of(node),
                ));
            }
            _ => {
                if let Some(c) = contract {
                    items.push(logic_item(c, text));
                }
            }
        }
    }
    if let Some(p) = pending {
        items.push(logic_item(p, text));
    }
    items
}

fn preproc_defines(node: Node<'_>, text: &str) -> Vec<String> {
    match node.child_by_field_name("name") {
        Some(n) if node.kind() == "preproc_def" || node.kind() == "preproc_function_def" => {
            vec![Span::of(n).text(text).to_string()]
        }
        _ => Vec::new(),
    }
}

fn logic_item(span: Span, text: &str) -> Item {
    // The name of the first logic declaration, for display.
    let body = span.text(text);
    let mut name = String::new();
    let words: Vec<&str> = body
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        if matches!(*w, "predicate" | "lemma" | "axiomatic" | "inductive") {
            if let Some(n) = words.get(i + 1) {
                name = (*n).to_string();
            }
            break;
        }
        if *w == "logic" {
            // `logic TYPE NAME(...)`: the name is the last word before `(` or `=`.
            let rest = &body[body.find("logic").unwrap_or(0) + 5..];
            let head = rest.split(['(', '=', ';']).next().unwrap_or("");
            name = head
                .split_whitespace()
                .last()
                .unwrap_or("")
                .trim_start_matches('*')
                .to_string();
            break;
        }
    }
    Item::declared(ItemKind::Logic, name, Vec::new(), BTreeSet::new(), span)
}

/// The identifier a declarator declares (through pointers, arrays, functions, inits).
fn declarator_name<'t>(mut node: Node<'t>, text: &'t str) -> Option<(String, bool)> {
    let mut is_function = false;
    loop {
        match node.kind() {
            "identifier" | "type_identifier" | "field_identifier" => {
                return Some((Span::of(node).text(text).to_string(), is_function))
            }
            "function_declarator" => {
                is_function = true;
                node = node.child_by_field_name("declarator")?;
            }
            "parenthesized_declarator" => node = node.named_child(0)?,
            _ => node = node.child_by_field_name("declarator")?,
        }
    }
}

fn function_item(node: Node<'_>, text: &str) -> Item {
    let name = node
        .child_by_field_name("declarator")
        .and_then(|d| declarator_name(d, text))
        .map(|(n, _)| n)
        .unwrap_or_default();
    let mut locals = BTreeSet::new();
    collect_locals(node, text, &mut locals);
    let mut refs = BTreeSet::new();
    collect_refs(node, text, &mut refs);
    for l in &locals {
        refs.remove(l);
    }
    refs.remove(&name);
    // A directly recursive function depends on itself.
    if references_name(node, text, &name) {
        refs.insert(name.clone());
    }
    let body = node.child_by_field_name("body");
    let mut loops = Vec::new();
    if let Some(b) = body {
        collect_loops(b, text, 0, None, &mut loops);
    }
    Item {
        kind: ItemKind::Function,
        defines: vec![name.clone()],
        name,
        refs,
        span: Span::of(node),
        contract: None,
        body: body.map(Span::of),
        loops,
    }
}

fn references_name(node: Node<'_>, text: &str, name: &str) -> bool {
    let Some(body) = node.child_by_field_name("body") else {
        return false;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && Span::of(n).text(text) == name {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

/// Parameters and local variables of a function.
fn collect_locals(node: Node<'_>, text: &str, out: &mut BTreeSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "parameter_declaration" => {
                if let Some((name, _)) = n
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d, text))
                {
                    out.insert(name);
                }
            }
            "declaration" if n.id() != node.id() => {
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    if let Some((name, _)) = declarator_name(d, text) {
                        out.insert(name);
                    }
                }
            }
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

/// Identifiers and type names used under `node`, plus `struct X` tags referenced.
fn collect_refs(node: Node<'_>, text: &str, out: &mut BTreeSet<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "identifier" | "type_identifier" => {
                out.insert(Span::of(n).text(text).to_string());
            }
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                if let Some(name) = n.child_by_field_name("name") {
                    out.insert(tag_name(n, name, text));
                }
            }
            "comment" => continue,
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

fn tag_name(spec: Node<'_>, name: Node<'_>, text: &str) -> String {
    let kw = match spec.kind() {
        "struct_specifier" => "struct",
        "union_specifier" => "union",
        _ => "enum",
    };
    format!("{kw} {}", Span::of(name).text(text))
}

/// Tags and enumerators defined by a type specifier with a body.
fn collect_type_defs(node: Node<'_>, text: &str, out: &mut Vec<String>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "struct_specifier" | "union_specifier" | "enum_specifier"
                if n.child_by_field_name("body").is_some() =>
            {
                if let Some(name) = n.child_by_field_name("name") {
                    out.push(tag_name(n, name, text));
                }
            }
            "enumerator" => {
                if let Some(name) = n.child_by_field_name("name") {
                    out.push(Span::of(name).text(text).to_string());
                }
            }
            _ => {}
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

fn type_item(node: Node<'_>, text: &str) -> Item {
    let mut defines = Vec::new();
    if node.kind() == "type_definition" {
        let mut c = node.walk();
        for d in node.children_by_field_name("declarator", &mut c) {
            if let Some((name, _)) = declarator_name(d, text) {
                defines.push(name);
            }
        }
    }
    let refs = outside_refs(node, text, &mut defines);
    Item::declared(
        ItemKind::Type,
        defines.first().cloned().unwrap_or_default(),
        defines,
        refs,
        Span::of(node),
    )
}

/// The names `node` refers to that it does not define: `defines` gets the types it
/// defines too, and neither those nor the parameter names of function-pointer types
/// count as references.
fn outside_refs(node: Node<'_>, text: &str, defines: &mut Vec<String>) -> BTreeSet<String> {
    collect_type_defs(node, text, defines);
    let mut refs = BTreeSet::new();
    collect_refs(node, text, &mut refs);
    for d in defines.iter() {
        refs.remove(d);
    }
    remove_field_names(node, text, &mut refs);
    refs
}

fn remove_field_names(node: Node<'_>, text: &str, refs: &mut BTreeSet<String>) {
    // Parameter names inside function-pointer types are not references.
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "parameter_declaration" {
            if let Some((name, _)) = n
                .child_by_field_name("declarator")
                .and_then(|d| declarator_name(d, text))
            {
                refs.remove(&name);
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
}

fn declaration_item(node: Node<'_>, text: &str) -> Item {
    let mut names = Vec::new();
    let mut any_function = false;
    let mut all_function = true;
    let mut c = node.walk();
    for d in node.children_by_field_name("declarator", &mut c) {
        if let Some((name, is_fn)) = declarator_name(d, text) {
            any_function |= is_fn;
            all_function &= is_fn;
            names.push(name);
        }
    }
    let kind = if any_function && all_function {
        ItemKind::Prototype
    } else if names.is_empty() {
        ItemKind::Type
    } else {
        ItemKind::Global
    };
    let mut defines = names.clone();
    let refs = outside_refs(node, text, &mut defines);
    let name = names
        .first()
        .cloned()
        .or_else(|| defines.first().cloned())
        .unwrap_or_default();
    Item::declared(kind, name, defines, refs, Span::of(node))
}

fn loop_kind(kind: &str) -> Option<LoopKind> {
    match kind {
        "for_statement" => Some(LoopKind::For),
        "while_statement" => Some(LoopKind::While),
        "do_statement" => Some(LoopKind::DoWhile),
        _ => None,
    }
}

/// Loops under `node` in post-order; annotations are the ACSL comments that
/// immediately precede a loop among its siblings.
fn collect_loops(
    node: Node<'_>,
    text: &str,
    depth: usize,
    parent_slot: Option<usize>,
    out: &mut Vec<Loop>,
) {
    let mut c = node.walk();
    let kids: Vec<Node<'_>> = node.children(&mut c).collect();
    let mut prev_comment: Option<Span> = None;
    let mut skipped: Vec<Span> = Vec::new();
    for k in kids {
        if k.kind() == "comment" {
            let s = Span::of(k);
            if is_acsl_comment(s.text(text)) {
                prev_comment = Some(s);
                skipped.clear();
            } else {
                skipped.push(s);
            }
            continue;
        }
        if let Some(kind) = loop_kind(k.kind()) {
            let annotation = prev_comment
                .filter(|a| only_space_or_comments(text, a.end, k.start_byte(), &skipped))
                .filter(|a| a.text(text).contains("loop"));
            // Children first (post-order); their parent index is fixed up below.
            let first_child = out.len();
            collect_loops(k, text, depth + 1, None, out);
            let index = out.len();
            for l in &mut out[first_child..] {
                if l.parent.is_none() && l.depth == depth + 1 {
                    l.parent = Some(index);
                }
            }
            out.push(Loop {
                index,
                kind,
                span: Span::of(k),
                annotation,
                depth,
                parent: parent_slot,
            });
        } else {
            collect_loops(k, text, depth, parent_slot, out);
        }
        prev_comment = None;
    }
}

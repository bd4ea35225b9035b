//! Typed SMT-LIB commands and whole scripts.

use crate::context::{Context, FunDef};
use crate::elab::Elaborator;
use crate::sexp::{self, Comment, ReadLimits, Sexp};
use crate::source::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::term::{Sort, Symbol, Term};
use std::sync::Arc;

/// One SMT-LIB command, checked against the context it appeared in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `(set-logic L)`
    SetLogic(String),
    /// `(set-info :k v)`
    SetInfo(String, Option<Sexp>),
    /// `(set-option :k v)`
    SetOption(String, Option<Sexp>),
    /// `(declare-const x S)` or `(declare-fun x () S)`
    DeclareConst(Symbol, Sort),
    /// `(declare-datatype E ((A) (B)))` with nullary constructors only
    DeclareEnum(Symbol, Vec<Symbol>),
    /// `(define-fun f ((p S) ...) S body)`
    DefineFun(Arc<FunDef>),
    /// `(assert t)`
    Assert(Term),
    /// `(check-sat)`
    CheckSat,
    /// `(check-sat-assuming (l ...))`
    CheckSatAssuming(Vec<Term>),
    /// `(push n)`
    Push(u32),
    /// `(pop n)`
    Pop(u32),
    /// `(get-model)`
    GetModel,
    /// `(get-value (t ...))`
    GetValue(Vec<Term>),
    /// `(get-unsat-core)`
    GetUnsatCore,
    /// `(get-unsat-assumptions)`
    GetUnsatAssumptions,
    /// `(get-info :k)`
    GetInfo(String),
    /// `(get-option :k)`
    GetOption(String),
    /// `(get-assertions)`
    GetAssertions,
    /// `(echo "s")`
    Echo(String),
    /// `(reset)`
    Reset,
    /// `(reset-assertions)`
    ResetAssertions,
    /// `(exit)`
    Exit,
}

impl Command {
    /// The command's SMT-LIB name, e.g. `declare-const`.
    pub fn name(&self) -> &'static str {
        match self {
            Command::SetLogic(_) => "set-logic",
            Command::SetInfo(..) => "set-info",
            Command::SetOption(..) => "set-option",
            Command::DeclareConst(..) => "declare-const",
            Command::DeclareEnum(..) => "declare-datatype",
            Command::DefineFun(_) => "define-fun",
            Command::Assert(_) => "assert",
            Command::CheckSat => "check-sat",
            Command::CheckSatAssuming(_) => "check-sat-assuming",
            Command::Push(_) => "push",
            Command::Pop(_) => "pop",
            Command::GetModel => "get-model",
            Command::GetValue(_) => "get-value",
            Command::GetUnsatCore => "get-unsat-core",
            Command::GetUnsatAssumptions => "get-unsat-assumptions",
            Command::GetInfo(_) => "get-info",
            Command::GetOption(_) => "get-option",
            Command::GetAssertions => "get-assertions",
            Command::Echo(_) => "echo",
            Command::Reset => "reset",
            Command::ResetAssertions => "reset-assertions",
            Command::Exit => "exit",
        }
    }
}

/// A command and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned {
    /// The command.
    pub command: Command,
    /// Its source span.
    pub span: Span,
}

/// A parsed, checked script.
#[derive(Debug, Clone)]
pub struct Script {
    /// Commands in order.
    pub commands: Vec<Spanned>,
    /// Top-level comments, for formatters that keep them.
    pub comments: Vec<Comment>,
    /// The symbol table after the last command.
    pub context: Context,
    /// Warnings (errors make parsing fail).
    pub warnings: Vec<Diagnostic>,
}

impl Script {
    /// The recorded `(set-info :status ...)`, if any.
    pub fn status(&self) -> Option<&str> {
        self.commands.iter().find_map(|c| match &c.command {
            Command::SetInfo(k, Some(v)) if k == "status" => v.as_symbol(),
            _ => None,
        })
    }

    /// All asserted terms, in order (ignoring push/pop).
    pub fn assertions(&self) -> impl Iterator<Item = &Term> {
        self.commands.iter().filter_map(|c| match &c.command {
            Command::Assert(t) => Some(t),
            _ => None,
        })
    }
}

/// Options for [`parse_script_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions {
    /// Reader limits.
    pub limits: ReadLimits,
}

/// Parses and type-checks a whole script, reporting every error it can find.
pub fn parse_script(file: &SourceFile) -> Result<Script, Diagnostics> {
    parse_script_with(file, Context::new(), ParseOptions::default())
}

/// Parses a script starting from a given context.
pub fn parse_script_with(
    file: &SourceFile,
    context: Context,
    options: ParseOptions,
) -> Result<Script, Diagnostics> {
    let read = sexp::read(file.text(), options.limits);
    let mut diags = read.errors;
    let mut el = Elaborator::new(context);
    let mut commands = Vec::with_capacity(read.items.len());
    for item in &read.items {
        if let Some(command) = el.command(item) {
            commands.push(Spanned {
                command,
                span: item.span,
            });
        }
    }
    diags.extend(el.take_diagnostics());
    diags.sort_by_key(|d| d.span.start);
    let (errors, warnings): (Vec<_>, Vec<_>) = diags
        .into_iter()
        .partition(|d| d.severity == crate::source::Severity::Error);
    if !errors.is_empty() {
        let mut all = errors;
        all.extend(warnings);
        all.sort_by_key(|d| d.span.start);
        return Err(file.locate_all(&all));
    }
    Ok(Script {
        commands,
        comments: read.comments,
        context: el.into_context(),
        warnings,
    })
}

/// Parses one term against a context (for terms given on the command line or in a spec).
pub fn parse_term(file: &SourceFile, context: &Context) -> Result<Term, Diagnostics> {
    elaborate_term(file.text(), context).map_err(|ds| file.locate_all(&ds))
}

/// Parses one term, returning diagnostics with spans relative to `text` (for callers
/// that embed the term in a larger file and shift the spans themselves).
pub fn elaborate_term(text: &str, context: &Context) -> Result<Term, Vec<Diagnostic>> {
    let e = sexp::read_one(text)?;
    if e.depth() > ReadLimits::default().max_depth {
        return Err(vec![Diagnostic::error(e.span, "term nested too deeply")]);
    }
    let mut el = Elaborator::new(context.clone());
    let t = el.term(&e);
    let ds = el.take_diagnostics();
    match t {
        Some(t) if ds.is_empty() => Ok(t),
        _ => Err(ds),
    }
}

/// Like [`elaborate_term`], and the term must be Boolean.
pub fn elaborate_formula(text: &str, context: &Context) -> Result<Term, Vec<Diagnostic>> {
    let t = elaborate_term(text, context)?;
    if t.sort() != Sort::Bool {
        return Err(vec![Diagnostic::error(
            Span::new(0, text.len()),
            format!("expected a Bool formula, found a term of sort {}", t.sort()),
        )
        .with_hint("compare it with something, e.g. (> x 0)")]);
    }
    Ok(t)
}

/// Parses one term and checks that it is Boolean.
pub fn parse_formula(file: &SourceFile, context: &Context) -> Result<Term, Diagnostics> {
    elaborate_formula(file.text(), context).map_err(|ds| file.locate_all(&ds))
}

/// Prints a script back, one command per line, keeping top-level comments in place.
pub fn format_script(script: &Script, width: usize) -> String {
    let mut out = String::new();
    let mut comments = script.comments.iter().peekable();
    for c in &script.commands {
        while let Some(cm) = comments.next_if(|cm| cm.span.start < c.span.start) {
            out.push(';');
            out.push_str(&cm.text);
            out.push('\n');
        }
        out.push_str(&crate::print::command_pretty(&c.command, width));
        out.push('\n');
    }
    for cm in comments {
        out.push(';');
        out.push_str(&cm.text);
        out.push('\n');
    }
    out
}

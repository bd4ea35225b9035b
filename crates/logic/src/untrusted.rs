//! The safe command subset: the only way text from an untrusted source (an LLM, a
//! spreadsheet cell) becomes declarations and assertions.
//!
//! Only declarations, definitions and assertions are accepted; every other command,
//! oversized or over-deep input, and any error in the text makes the whole input
//! fail. Nothing here talks to a solver: accepted items are typed terms that vera's
//! own printer writes out later.

use crate::context::{Context, FunDef};
use crate::elab::Elaborator;
use crate::sexp::{self, ReadLimits};
use crate::source::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::term::{Sort, Symbol, Term};
use std::sync::Arc;

/// Bounds on untrusted input.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest accepted input, in bytes.
    pub max_bytes: usize,
    /// Deepest accepted nesting.
    pub max_depth: usize,
    /// Most accepted commands.
    pub max_commands: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 256 * 1024,
            max_depth: 200,
            max_commands: 2_000,
        }
    }
}

/// What untrusted text may contribute.
#[derive(Debug, Clone, Default)]
pub struct Untrusted {
    /// New constants.
    pub constants: Vec<(Symbol, Sort)>,
    /// New enumerations.
    pub enums: Vec<(Symbol, Vec<Symbol>)>,
    /// New definitions.
    pub definitions: Vec<Arc<FunDef>>,
    /// Assertions, with the span of each in the input.
    pub assertions: Vec<(Term, Span)>,
    /// The context extended with the new declarations.
    pub context: Context,
}

const ALLOWED: &str =
    "declare-const, declare-fun (no arguments), define-fun, declare-datatype(s) and assert";

/// Reads untrusted SMT-LIB text against a base context (the schema). Either every
/// command is acceptable and type-correct, or the result lists every problem found.
pub fn parse_untrusted(
    name: &str,
    text: &str,
    base: &Context,
    limits: Limits,
) -> Result<Untrusted, Diagnostics> {
    if text.len() > limits.max_bytes {
        let file = SourceFile::new(name, "");
        let d = Diagnostic::error(
            Span::new(0, 0),
            format!(
                "input of {} bytes exceeds the limit of {} bytes",
                text.len(),
                limits.max_bytes
            ),
        )
        .with_hint("answer with the formulas only");
        return Err(file.locate_all(&[d]));
    }
    let file = SourceFile::new(name, text);
    let read = sexp::read(
        text,
        ReadLimits {
            max_depth: limits.max_depth,
        },
    );
    let mut diags = read.errors;
    if read.items.len() > limits.max_commands {
        diags.push(Diagnostic::error(
            read.items[limits.max_commands].span,
            format!("more than {} commands", limits.max_commands),
        ));
    }
    let mut el = Elaborator::new(base.clone());
    let mut out = Untrusted::default();
    let mut stray = false;
    for item in read.items.iter().take(limits.max_commands) {
        let head = item.head();
        // Prose around the formulas: one error for each run of stray words.
        if item.as_list().is_none() {
            if !stray {
                diags.push(
                    Diagnostic::error(
                        item.span,
                        format!(
                            "text outside any command, starting at `{}`",
                            shorten(&item.to_string())
                        ),
                    )
                    .with_hint(format!("answer with SMT-LIB commands only: {ALLOWED}")),
                );
            }
            stray = true;
            continue;
        }
        stray = false;
        match head {
            Some(
                "declare-const" | "declare-fun" | "define-fun" | "declare-datatype"
                | "declare-datatypes" | "assert",
            ) => {}
            Some(h) => {
                diags.push(
                    Diagnostic::error(item.span, format!("command `{h}` is not allowed here"))
                        .with_hint(format!("only {ALLOWED} are accepted")),
                );
                continue;
            }
            None => {
                diags.push(
                    Diagnostic::error(
                        item.span,
                        format!("expected a command, found `{}`", shorten(&item.to_string())),
                    )
                    .with_hint(format!("only {ALLOWED} are accepted")),
                );
                continue;
            }
        }
        match el.command(item) {
            Some(crate::script::Command::DeclareConst(n, s)) => out.constants.push((n, s)),
            Some(crate::script::Command::DeclareEnum(n, cs)) => out.enums.push((n, cs)),
            Some(crate::script::Command::DefineFun(f)) => out.definitions.push(f),
            Some(crate::script::Command::Assert(t)) => out.assertions.push((t, item.span)),
            Some(_) | None => {}
        }
    }
    diags.extend(el.take_diagnostics());
    if !diags.is_empty() {
        diags.sort_by_key(|d| d.span.start);
        return Err(file.locate_all(&diags));
    }
    out.context = el.into_context();
    Ok(out)
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

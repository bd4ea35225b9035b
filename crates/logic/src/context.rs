//! The symbol table that terms are checked against: declared constants, enumerations,
//! defined functions and the logic in force, with `push`/`pop` scoping.

use crate::term::{Sort, Symbol, Term};
use indexmap::IndexMap;
use std::sync::Arc;

/// A function introduced with `define-fun`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FunDef {
    /// Its name.
    pub name: Symbol,
    /// Parameters and their sorts (empty for a defined constant).
    pub params: Vec<(Symbol, Sort)>,
    /// Result sort.
    pub sort: Sort,
    /// The body, over the parameters and global symbols.
    pub body: Term,
}

/// What arithmetic the logic in force allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arithmetic {
    /// No logic set, or one without a restriction (e.g. `ALL`, `QF_NIA`).
    Unrestricted,
    /// A linear logic (`QF_LIA`, `QF_LRA`, `QF_IDL`, ...): products need a constant factor.
    Linear,
}

/// What a name denotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A declared constant.
    Const(Sort),
    /// A defined function or constant.
    Fun(Arc<FunDef>),
    /// An enumeration sort with its constructors.
    EnumSort(Vec<Symbol>),
    /// A constructor of the named enumeration sort.
    Ctor(Symbol),
}

/// Declarations in scope.
#[derive(Debug, Clone, Default)]
pub struct Context {
    logic: Option<String>,
    names: IndexMap<Symbol, Entry>,
    /// Number of names at each `push`.
    marks: Vec<usize>,
    /// `:global-declarations`: declarations outlive `pop` and `reset-assertions`.
    global: bool,
}

/// The most `push` scopes that may be open at once. A script asking for more gets an
/// error instead of an assertion stack that grows without bound.
pub const MAX_SCOPES: usize = 10_000;

/// A `push` beyond [`MAX_SCOPES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at most {max} scopes may be open; {open} are open and {requested} more were requested", max = MAX_SCOPES)]
pub struct TooManyScopes {
    /// Scopes open before the request.
    pub open: usize,
    /// Scopes requested.
    pub requested: u64,
}

/// Words a user may not take as a name.
pub const RESERVED: &[&str] = &[
    "true",
    "false",
    "let",
    "forall",
    "exists",
    "match",
    "par",
    "_",
    "!",
    "as",
    "Bool",
    "Int",
    "Real",
    "NUMERAL",
    "DECIMAL",
    "STRING",
    "BINARY",
    "HEXADECIMAL",
];

/// Prefix of names vera makes up itself (assumption literals and the like).
pub const INTERNAL_PREFIX: &str = "vera!";

impl Context {
    /// An empty context with no logic set.
    pub fn new() -> Context {
        Context::default()
    }

    /// The logic set with `set-logic`, if any.
    pub fn logic(&self) -> Option<&str> {
        self.logic.as_deref()
    }

    /// Sets the logic.
    pub fn set_logic(&mut self, logic: &str) {
        self.logic = Some(logic.to_string());
    }

    /// What arithmetic the logic allows.
    pub fn arithmetic(&self) -> Arithmetic {
        match self.logic.as_deref() {
            Some(l)
                if l.contains("LIA")
                    || l.contains("LRA")
                    || l.contains("LIRA")
                    || l.contains("IDL")
                    || l.contains("RDL") =>
            {
                Arithmetic::Linear
            }
            _ => Arithmetic::Unrestricted,
        }
    }

    /// True when the logic allows datatypes (or no logic is set).
    pub fn allows_datatypes(&self) -> bool {
        match self.logic.as_deref() {
            None => true,
            Some(l) => l == "ALL" || l.contains("DT"),
        }
    }

    /// Looks a name up.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.names.get(name)
    }

    /// True when the name is taken (by a symbol, sort or constructor).
    pub fn is_declared(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Why `name` cannot be declared, if it cannot.
    pub fn check_new_name(&self, name: &str) -> Option<String> {
        if self.names.contains_key(name) {
            return Some(format!("`{name}` is already declared"));
        }
        if RESERVED.contains(&name) || crate::term::Op::from_name(name).is_some() {
            return Some(format!("`{name}` is a reserved word of SMT-LIB"));
        }
        if name.starts_with(INTERNAL_PREFIX) {
            return Some(format!(
                "names starting with `{INTERNAL_PREFIX}` are reserved for vera"
            ));
        }
        if !crate::sexp::is_printable_symbol(name) {
            return Some(format!("`{name}` cannot be written as an SMT-LIB symbol"));
        }
        None
    }

    /// Declares a constant. The caller checks the name first.
    pub fn declare_const(&mut self, name: Symbol, sort: Sort) {
        self.names.insert(name, Entry::Const(sort));
    }

    /// Declares an enumeration sort and its constructors.
    pub fn declare_enum(&mut self, name: Symbol, ctors: Vec<Symbol>) {
        for c in &ctors {
            self.names.insert(c.clone(), Entry::Ctor(name.clone()));
        }
        self.names.insert(name, Entry::EnumSort(ctors));
    }

    /// Adds a definition.
    pub fn define(&mut self, def: FunDef) {
        self.names
            .insert(def.name.clone(), Entry::Fun(Arc::new(def)));
    }

    /// Opens `n` scopes, unless that would make more than [`MAX_SCOPES`] open (then
    /// nothing changes).
    pub fn push(&mut self, n: usize) -> Result<(), TooManyScopes> {
        if n > MAX_SCOPES - self.marks.len() {
            return Err(TooManyScopes {
                open: self.marks.len(),
                requested: n as u64,
            });
        }
        let mark = self.names.len();
        self.marks.resize(self.marks.len() + n, mark);
        Ok(())
    }

    /// Closes `n` scopes, forgetting what they declared (unless declarations are
    /// global). Returns false, changing nothing, if fewer were open.
    pub fn pop(&mut self, n: usize) -> bool {
        if n > self.marks.len() {
            return false;
        }
        let keep = self.marks.len() - n;
        if let Some(&m) = self.marks.get(keep) {
            if !self.global {
                self.names.truncate(m);
            }
        }
        self.marks.truncate(keep);
        true
    }

    /// `(reset-assertions)`: closes every scope and, unless declarations are global,
    /// forgets every declaration and definition. The logic and options stay.
    pub fn reset_assertions(&mut self) {
        if !self.global {
            self.names.clear();
        }
        self.marks.clear();
    }

    /// Sets `:global-declarations` (SMT-LIB's default is off).
    pub fn set_global_declarations(&mut self, on: bool) {
        self.global = on;
    }

    /// True when declarations survive `pop` and `reset-assertions`.
    pub fn global_declarations(&self) -> bool {
        self.global
    }

    /// Number of open scopes.
    pub fn depth(&self) -> usize {
        self.marks.len()
    }

    /// Declared constants in declaration order.
    pub fn consts(&self) -> impl Iterator<Item = (&Symbol, &Sort)> {
        self.names.iter().filter_map(|(n, e)| match e {
            Entry::Const(s) => Some((n, s)),
            _ => None,
        })
    }

    /// Definitions in order.
    pub fn defs(&self) -> impl Iterator<Item = &Arc<FunDef>> {
        self.names.values().filter_map(|e| match e {
            Entry::Fun(f) => Some(f),
            _ => None,
        })
    }

    /// Enumeration sorts in order, with their constructors.
    pub fn enums(&self) -> impl Iterator<Item = (&Symbol, &[Symbol])> {
        self.names.iter().filter_map(|(n, e)| match e {
            Entry::EnumSort(c) => Some((n, c.as_slice())),
            _ => None,
        })
    }

    /// The function definition named `name`.
    pub fn fun(&self, name: &str) -> Option<&Arc<FunDef>> {
        match self.names.get(name) {
            Some(Entry::Fun(f)) => Some(f),
            _ => None,
        }
    }

    /// Names of symbols close to `name` (for "did you mean" hints). Only names of up
    /// to 64 bytes are compared, and at most 5,000 of them, so a hint stays cheap.
    pub fn similar(&self, name: &str) -> Option<&str> {
        const LONGEST: usize = 64;
        const MOST: usize = 5_000;
        if name.len() > LONGEST {
            return None;
        }
        let mut best: Option<(&str, f64)> = None;
        for n in self.names.keys().filter(|n| n.len() <= LONGEST).take(MOST) {
            let score = strsim::jaro_winkler(name, n);
            if score > 0.85 && best.is_none_or(|(_, b)| score > b) {
                best = Some((n, score));
            }
        }
        best.map(|(n, _)| n)
    }
}

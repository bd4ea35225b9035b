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

    /// Opens `n` scopes.
    pub fn push(&mut self, n: usize) {
        for _ in 0..n {
            self.marks.push(self.names.len());
        }
    }

    /// Closes `n` scopes, forgetting what they declared. Returns false if fewer were open.
    pub fn pop(&mut self, n: usize) -> bool {
        for _ in 0..n {
            match self.marks.pop() {
                Some(m) => self.names.truncate(m),
                None => return false,
            }
        }
        true
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

    /// Names of symbols close to `name` (for "did you mean" hints).
    pub fn similar(&self, name: &str) -> Option<&str> {
        let mut best: Option<(&str, f64)> = None;
        for n in self.names.keys() {
            let score = strsim::jaro_winkler(name, n);
            if score > 0.85 && best.is_none_or(|(_, b)| score > b) {
                best = Some((n, score));
            }
        }
        best.map(|(n, _)| n)
    }
}

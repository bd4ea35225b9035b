//! Names bound by `let` and by function parameters, innermost last, with an index so
//! that a lookup does not scan every binding (a `let` of 50,000 bindings used 50,000
//! times would otherwise take billions of steps).

use crate::term::Symbol;
use std::collections::HashMap;

/// A stack of bindings with lookup of the innermost binding of a name.
#[derive(Debug, Clone)]
pub(crate) struct Scoped<V> {
    items: Vec<(Symbol, V)>,
    index: HashMap<Symbol, Vec<usize>>,
}

impl<V> Default for Scoped<V> {
    fn default() -> Self {
        Scoped {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<V> Scoped<V> {
    /// Binds `name` on top.
    pub(crate) fn push(&mut self, name: Symbol, v: V) {
        self.index
            .entry(name.clone())
            .or_default()
            .push(self.items.len());
        self.items.push((name, v));
    }

    /// The number of bindings.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Drops the bindings made after the first `n`.
    pub(crate) fn truncate(&mut self, n: usize) {
        while self.items.len() > n {
            let Some((name, _)) = self.items.pop() else {
                break;
            };
            if let Some(at) = self.index.get_mut(&name) {
                at.pop();
                if at.is_empty() {
                    self.index.remove(&name);
                }
            }
        }
    }

    /// The innermost binding of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        let i = *self.index.get(name)?.last()?;
        self.items.get(i).map(|(_, v)| v)
    }
}

impl<V> FromIterator<(Symbol, V)> for Scoped<V> {
    fn from_iter<I: IntoIterator<Item = (Symbol, V)>>(iter: I) -> Self {
        let mut s = Scoped::default();
        for (n, v) in iter {
            s.push(n, v);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn innermost_binding_wins_and_truncate_restores() {
        let mut s: Scoped<i32> = Scoped::default();
        s.push("a".into(), 1);
        s.push("b".into(), 2);
        let n = s.len();
        s.push("a".into(), 3);
        assert_eq!(s.get("a"), Some(&3));
        s.truncate(n);
        assert_eq!(s.get("a"), Some(&1));
        s.truncate(0);
        assert_eq!(s.get("a"), None);
        assert_eq!(s.get("b"), None);
    }
}

//! Segments: the dependency graph of a file's items (calls and type references),
//! its strongly connected components in topological order, and the points of
//! interest of each segment in post-order (SpecSyn, sections 3.1.1 and 3.2.1).

use std::collections::{BTreeMap, BTreeSet};

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};

use crate::front::{CFile, ItemKind, Span};

/// A strongly connected component of the dependency graph: the unit of
/// specification generation and verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// Position in topological order: every segment depends only on segments with a
    /// smaller index.
    pub index: usize,
    /// Indices into [`CFile::items`] of the items in this segment, in source order.
    pub items: Vec<usize>,
    /// Names of the function definitions in this segment, in source order.
    pub functions: Vec<String>,
    /// Names of the other items (types, globals, prototypes), in source order.
    pub others: Vec<String>,
    /// True when the segment is recursive (a cycle, or a function calling itself).
    pub recursive: bool,
    /// Indices of the segments this one depends on directly.
    pub depends_on: Vec<usize>,
    /// Function definitions in other segments this one calls directly.
    pub called: Vec<String>,
    /// The part of [`Segment::called`] used through its contract in a harness:
    /// functions whose contract has an `assigns` clause for the default behaviour.
    pub called_by_contract: Vec<String>,
    /// The part of [`Segment::called`] kept whole (contract, if any, and body) in a
    /// harness: functions without a contract or whose contract has no default
    /// `assigns` clause. Reduced to a prototype, such a function would get
    /// `assigns` clauses that Frama-C generates from its prototype (for
    /// `void f(void)`: `assigns \nothing`), which is more than the whole file lets
    /// WP assume: with the body present, WP assumes the call may assign anything.
    pub called_with_body: Vec<String>,
}

/// Where a point of interest is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PoiKind {
    /// The contract of a function.
    Contract,
    /// The annotation of a loop (index in the function's post-order list of loops).
    Loop {
        /// [`crate::front::Loop::index`].
        index: usize,
    },
}

/// A location where specifications belong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Poi {
    /// The function it belongs to.
    pub function: String,
    /// Contract or loop.
    pub kind: PoiKind,
    /// The byte offset before which a new annotation comment goes (the start of the
    /// function or loop statement).
    pub anchor: usize,
    /// 1-based line of the anchor.
    pub line: usize,
    /// The existing annotation comment, if any.
    pub existing: Option<Span>,
}

/// Segments of a file in topological order (dependencies first). Preprocessor lines
/// and global ACSL annotations are not part of the graph: every harness keeps them.
pub fn segments(file: &CFile) -> Vec<Segment> {
    let mut graph: DiGraph<usize, ()> = DiGraph::new();
    let mut node_of: BTreeMap<usize, NodeIndex> = BTreeMap::new();
    let mut definers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, item) in file.items.iter().enumerate() {
        if matches!(item.kind, ItemKind::Preprocessor | ItemKind::Logic) {
            continue;
        }
        node_of.insert(i, graph.add_node(i));
        for d in &item.defines {
            definers.entry(d.as_str()).or_default().push(i);
        }
    }
    let mut self_loop = BTreeSet::new();
    for (&i, &n) in &node_of {
        let item = &file.items[i];
        for r in &item.refs {
            for &j in definers.get(r.as_str()).map(Vec::as_slice).unwrap_or(&[]) {
                if j == i {
                    self_loop.insert(i);
                    continue;
                }
                graph.update_edge(n, node_of[&j], ());
            }
        }
    }
    // Tarjan's algorithm yields components in reverse topological order of the
    // edges user -> dependency, that is dependencies first.
    let sccs = tarjan_scc(&graph);
    let mut segment_of: BTreeMap<usize, usize> = BTreeMap::new();
    let mut out: Vec<Segment> = Vec::new();
    for comp in sccs {
        let mut items: Vec<usize> = comp.iter().map(|&n| graph[n]).collect();
        items.sort_unstable();
        let index = out.len();
        for &i in &items {
            segment_of.insert(i, index);
        }
        let recursive = items.len() > 1 || items.iter().any(|i| self_loop.contains(i));
        let mut functions = Vec::new();
        let mut others = Vec::new();
        for &i in &items {
            let it = &file.items[i];
            if it.kind == ItemKind::Function {
                functions.push(it.name.clone());
            } else {
                others.push(it.name.clone());
            }
        }
        out.push(Segment {
            index,
            items,
            functions,
            others,
            recursive,
            depends_on: Vec::new(),
            called: Vec::new(),
            called_by_contract: Vec::new(),
            called_with_body: Vec::new(),
        });
    }
    for seg in &mut out {
        let mut deps = BTreeSet::new();
        let mut called = BTreeSet::new();
        for &i in &seg.items {
            let n = node_of[&i];
            for m in graph.neighbors(n) {
                let j = graph[m];
                let s = segment_of[&j];
                if s != seg.index {
                    deps.insert(s);
                    if file.items[j].kind == ItemKind::Function {
                        called.insert(file.items[j].name.clone());
                    }
                }
            }
        }
        seg.depends_on = deps.into_iter().collect();
        seg.called = called.into_iter().collect();
        let (by_contract, with_body): (Vec<String>, Vec<String>) =
            seg.called.iter().cloned().partition(|name| {
                let mut defs = file
                    .items
                    .iter()
                    .filter(|it| it.kind == ItemKind::Function && it.name == *name)
                    .peekable();
                let has_assigns = |it: &crate::front::Item| {
                    it.contract
                        .is_some_and(|c| contract_has_assigns(c.text(&file.text)))
                };
                // A contract on a prototype (in a header) counts for the definition:
                // Frama-C merges the two.
                let declared = file.items.iter().any(|it| {
                    it.kind == ItemKind::Prototype && it.name == *name && has_assigns(it)
                });
                defs.peek().is_some() && (declared || defs.all(has_assigns))
            });
        seg.called_by_contract = by_contract;
        seg.called_with_body = with_body;
    }
    out
}

/// True when an ACSL contract comment has an `assigns` clause for the default
/// behaviour: an `assigns` keyword before the first named `behavior`. (ACSL puts
/// the default behaviour's clauses before the named behaviours.) A contract whose
/// `assigns` clauses are all inside named behaviours does not count: the answer
/// errs towards keeping a function's body.
pub fn contract_has_assigns(contract: &str) -> bool {
    let words = contract.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\\'));
    let mut previous = "";
    for w in words.filter(|w| !w.is_empty()) {
        match w {
            "behavior" => return false,
            "assigns" if previous != "loop" => return true,
            _ => {}
        }
        previous = w;
    }
    false
}

/// The segments that contain at least one function definition.
pub fn function_segments(file: &CFile) -> Vec<Segment> {
    segments(file)
        .into_iter()
        .filter(|s| !s.functions.is_empty())
        .collect()
}

/// Points of interest of one segment in post-order: for each function (in source
/// order), its loops with inner loops first, then its contract.
pub fn points_of_interest(file: &CFile, segment: &Segment) -> Vec<Poi> {
    let mut out = Vec::new();
    for &i in &segment.items {
        let item = &file.items[i];
        if item.kind != ItemKind::Function {
            continue;
        }
        for l in &item.loops {
            out.push(Poi {
                function: item.name.clone(),
                kind: PoiKind::Loop { index: l.index },
                anchor: l.span.start,
                line: l.span.line,
                existing: l.annotation,
            });
        }
        // A function whose contract sits on a prototype (in a header) has its
        // point of interest there: clauses go into that contract.
        let declared = file.items.iter().find(|p| {
            item.contract.is_none()
                && p.kind == ItemKind::Prototype
                && p.name == item.name
                && p.contract.is_some()
        });
        match declared {
            Some(p) => out.push(Poi {
                function: item.name.clone(),
                kind: PoiKind::Contract,
                anchor: p.span.start,
                line: p.span.line,
                existing: p.contract,
            }),
            None => out.push(Poi {
                function: item.name.clone(),
                kind: PoiKind::Contract,
                anchor: item.span.start,
                line: item.span.line,
                existing: item.contract,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::contract_has_assigns;

    #[test]
    fn default_assigns_clauses() {
        assert!(contract_has_assigns("/*@ assigns \\nothing; */"));
        assert!(contract_has_assigns(
            "/*@ requires p != \\null;\n    assigns *p;\n    ensures *p == 0; */"
        ));
        assert!(contract_has_assigns("//@ assigns g;"));
        assert!(!contract_has_assigns("/*@ ensures \\result >= 0; */"));
        assert!(!contract_has_assigns("/*@ ensures my_assigns == 0; */"));
        // Only inside named behaviours: not the default behaviour's.
        assert!(!contract_has_assigns(
            "/*@ behavior a: assumes x > 0; assigns g;\n    behavior b: assumes x <= 0; assigns \\nothing; */"
        ));
        assert!(!contract_has_assigns("/*@ loop assigns i; */"));
    }
}

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
    /// Function definitions in other segments this one calls directly: their
    /// contracts are what a harness of this segment assumes.
    pub called: Vec<String>,
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
    }
    out
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
        out.push(Poi {
            function: item.name.clone(),
            kind: PoiKind::Contract,
            anchor: item.span.start,
            line: item.span.line,
            existing: item.contract,
        });
    }
    out
}

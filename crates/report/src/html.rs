//! The model of a self-contained HTML report page.

/// How a count, an item or a bar is colored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Came out as hoped.
    Good,
    /// A finding.
    Bad,
    /// Undecided or doubtful.
    Warn,
    /// Information.
    Neutral,
}

/// A whole page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The title (the `<title>` and the top heading).
    pub title: String,
    /// A line under the title (the file, the solver, the time).
    pub subtitle: Option<String>,
    /// Summary counts shown as tiles at the top.
    pub counts: Vec<Count>,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// A summary tile.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    /// What is counted.
    pub label: String,
    /// How many.
    pub value: usize,
    /// Its color.
    pub tone: Tone,
}

/// A titled part of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The heading.
    pub heading: String,
    /// The content.
    pub blocks: Vec<Block>,
}

/// A piece of content.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A paragraph of plain text.
    Text(String),
    /// Preformatted text (a formula, an SMT script excerpt).
    Code(String),
    /// A table; every row has as many cells as there are headers.
    Table {
        /// Column headings.
        headers: Vec<String>,
        /// The rows.
        rows: Vec<Vec<String>>,
    },
    /// A titled, colored item (one requirement, one goal) with its own content.
    Item {
        /// e.g. `R3` or the goal name.
        title: String,
        /// A short verdict shown as a badge, e.g. `vacuous`.
        badge: String,
        /// Its color.
        tone: Tone,
        /// The item's content.
        blocks: Vec<Block>,
    },
    /// A directed graph drawn as a picture (conflicts, subsumption).
    Graph {
        /// What it shows.
        caption: String,
        /// The nodes.
        nodes: Vec<Node>,
        /// The edges, by node index.
        edges: Vec<Edge>,
    },
    /// A horizontal bar chart (mutation detection, ambiguity classes).
    Bars {
        /// What it shows.
        caption: String,
        /// The bars.
        bars: Vec<Bar>,
    },
}

/// A graph node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The label drawn in it.
    pub label: String,
    /// Its color.
    pub tone: Tone,
}

/// A directed graph edge between nodes, by index into [`Block::Graph::nodes`].
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Source node index.
    pub from: usize,
    /// Target node index.
    pub to: usize,
    /// A label drawn on it, if any.
    pub label: Option<String>,
}

/// One bar: `value` out of `max`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// What the bar counts.
    pub label: String,
    /// Its length.
    pub value: f64,
    /// The full length (at least `value`).
    pub max: f64,
    /// Its color.
    pub tone: Tone,
}

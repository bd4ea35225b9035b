//! Lays out and draws a [`Block::Graph`](super::Block::Graph) as inline SVG.
//!
//! Small graphs with a cycle (conflicts typically are) are drawn on a circle. Every other
//! graph is drawn in layers from top to bottom: a node's layer is the length of the
//! longest path that reaches it, after the edges that close cycles are set aside (those
//! are drawn pointing upwards). A layer wider than the page wraps onto further rows, and
//! the nodes of a layer are ordered by the mean position of their predecessors, which
//! keeps crossings down. Edge labels are moved off nodes and off each other when they
//! would overlap. Self-loops are drawn as small loops on a node's top left corner.

use std::fmt::Write as _;

use super::{escape, tone, Edge, Node};

/// Node box height.
const NODE_H: f64 = 30.0;
/// Room between two nodes of a row.
const GAP_X: f64 = 28.0;
/// Room between two rows (edge labels go there).
const GAP_Y: f64 = 64.0;
/// How wide a row may grow before it wraps.
const MAX_ROW_W: f64 = 1100.0;
/// Margin around the drawing (self-loops and labels reach into it).
const MARGIN: f64 = 44.0;
/// The most characters of a label drawn in a node (the rest is in its tooltip).
const MAX_LABEL: usize = 30;
/// Graphs with a cycle and at most this many nodes are drawn on a circle.
const MAX_CIRCLE: usize = 24;

/// A placed node: center and size.
#[derive(Debug, Clone, Copy)]
struct Placed {
    x: f64,
    y: f64,
    w: f64,
}

/// An axis-aligned box, for overlap tests.
#[derive(Debug, Clone, Copy)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn around(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect {
            x0: x - w / 2.0,
            y0: y - h / 2.0,
            x1: x + w / 2.0,
            y1: y + h / 2.0,
        }
    }
    fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// How wide a text of `font` px is likely to be (no font metrics at hand: wide
/// characters such as CJK and emoji count double).
fn text_width(s: &str, font: f64) -> f64 {
    s.chars()
        .map(|c| {
            if (c as u32) >= 0x1100 {
                font
            } else if c.is_ascii_uppercase() || c == 'm' || c == 'w' {
                font * 0.72
            } else {
                font * 0.56
            }
        })
        .sum()
}

/// The label as drawn: at most [`MAX_LABEL`] characters.
fn shown(label: &str) -> String {
    let one_line: String = label
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() > MAX_LABEL {
        let cut: String = one_line.chars().take(MAX_LABEL - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        one_line
    }
}

/// Writes the `<svg>` of a graph with at least one node; `id` makes its marker id unique
/// in the page.
pub(super) fn svg(out: &mut String, nodes: &[Node], edges: &[Edge], id: usize, caption: &str) {
    let n = nodes.len();
    let edges: Vec<&Edge> = edges.iter().filter(|e| e.from < n && e.to < n).collect();
    let labels: Vec<String> = nodes.iter().map(|nd| shown(&nd.label)).collect();
    let widths: Vec<f64> = labels
        .iter()
        .map(|l| (text_width(l, 13.0) + 22.0).max(44.0))
        .collect();

    let proper: Vec<(usize, usize)> = edges
        .iter()
        .filter(|e| e.from != e.to)
        .map(|e| (e.from, e.to))
        .collect();
    let back = back_edges(n, &proper);
    let layered_drawing = back.is_empty() || n > MAX_CIRCLE;
    let pos = place(&widths, &proper, &back, layered_drawing);
    let mut canvas = Canvas {
        node_boxes: pos
            .iter()
            .map(|p| Rect::around(p.x, p.y, p.w + 6.0, NODE_H + 6.0))
            .collect(),
        placed_labels: Vec::new(),
        body: String::new(),
        label_text: String::new(),
        max_x: pos.iter().map(|p| p.x + p.w / 2.0).fold(0.0, f64::max),
        max_y: pos.iter().map(|p| p.y + NODE_H / 2.0).fold(0.0, f64::max),
        // Curves and labels may reach past the nodes on any side.
        min_x: 0.0,
        min_y: 0.0,
    };
    let marker = format!("vera-arrow-{id}");
    for (k, e) in edges.iter().enumerate() {
        let a = pos[e.from];
        let (path, mid) = if e.from == e.to {
            self_loop(a)
        } else {
            let bend = edge_bend(
                &edges,
                k,
                &pos,
                layered_drawing && back.iter().any(|&bi| proper[bi] == (e.from, e.to)),
                layered_drawing,
            );
            curve(a, pos[e.to], bend)
        };
        canvas.reach(mid.0 - MARGIN, mid.1 - MARGIN, mid.0, mid.1);
        let _ = writeln!(
            canvas.body,
            "<path class=\"edge\" d=\"{path}\" marker-end=\"url(#{marker})\"/>"
        );
        if let Some(l) = &e.label {
            canvas.label(mid, l);
        }
    }

    let (x0, y0) = (canvas.min_x.floor(), canvas.min_y.floor());
    let width = (canvas.max_x + MARGIN).ceil() - x0;
    let height = (canvas.max_y + MARGIN).ceil() - y0;
    let _ = writeln!(
        out,
        "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"{x0} {y0} {width} {height}\" role=\"img\" \
         aria-label=\"{}\">",
        escape(caption)
    );
    let _ = writeln!(
        out,
        "<defs><marker id=\"{marker}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"8\" markerHeight=\"8\" markerUnits=\"userSpaceOnUse\" \
         orient=\"auto\"><path class=\"arrowhead\" d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>"
    );
    out.push_str(&canvas.body);
    for (i, nd) in nodes.iter().enumerate() {
        let p = pos[i];
        let _ = writeln!(
            out,
            "<g class=\"node {}\"><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" \
             width=\"{:.1}\" height=\"{NODE_H}\" rx=\"6\"/><text x=\"{:.1}\" y=\"{:.1}\" \
             text-anchor=\"middle\" dominant-baseline=\"central\">{}</text></g>",
            tone(nd.tone),
            escape(&nd.label),
            p.x - p.w / 2.0,
            p.y - NODE_H / 2.0,
            p.w,
            p.x,
            p.y,
            escape(&labels[i])
        );
    }
    out.push_str(&canvas.label_text);
    out.push_str("</svg>\n");
}

/// The nodes' places (of `widths`): on a circle, or in layers of the edges `proper`
/// without the back edges `back` when `layered_drawing`; shifted so the drawing starts
/// at the margin.
fn place(
    widths: &[f64],
    proper: &[(usize, usize)],
    back: &[usize],
    layered_drawing: bool,
) -> Vec<Placed> {
    let mut pos = if !layered_drawing {
        circle(widths)
    } else {
        let forward: Vec<(usize, usize)> = proper
            .iter()
            .enumerate()
            .filter(|(i, _)| !back.contains(i))
            .map(|(_, &e)| e)
            .collect();
        layered(widths.len(), &forward, widths)
    };
    let min_x = pos
        .iter()
        .map(|p| p.x - p.w / 2.0)
        .fold(f64::INFINITY, f64::min);
    let min_y = pos.iter().map(|p| p.y).fold(f64::INFINITY, f64::min) - NODE_H / 2.0;
    for p in &mut pos {
        p.x += MARGIN - min_x;
        p.y += MARGIN - min_y;
    }
    pos
}

/// How far edge `k` (between two different nodes) bends: parallel and opposite edges
/// between the same two nodes fan out; in a layered drawing, an edge that skips rows
/// or goes up swings wide of the nodes in between (up and down edges bend to opposite
/// sides), and a back edge (`is_back`) wider still.
fn edge_bend(
    edges: &[&Edge],
    k: usize,
    pos: &[Placed],
    is_back: bool,
    layered_drawing: bool,
) -> f64 {
    let e = edges[k];
    let (a, b) = (pos[e.from], pos[e.to]);
    let siblings: Vec<usize> = edges
        .iter()
        .enumerate()
        .filter(|(_, o)| (o.from == e.from && o.to == e.to) || (o.from == e.to && o.to == e.from))
        .map(|(i, _)| i)
        .collect();
    let rank = siblings.iter().position(|&i| i == k).unwrap_or(0) as f64;
    let count = siblings.len() as f64;
    let mut bend = if count > 1.0 {
        (rank - (count - 1.0) / 2.0) * 36.0 + if e.from < e.to { 0.0 } else { 18.0 }
    } else {
        0.0
    };
    if count > 1.0 && bend == 0.0 {
        bend = 18.0;
    }
    if layered_drawing && (b.y - a.y).abs() > NODE_H + GAP_Y + 1.0 {
        bend += a.w.max(b.w) / 2.0 + 30.0;
    }
    if is_back {
        bend += 30.0;
    }
    bend
}

/// The edges and edge labels drawn so far, the boxes they must keep clear of, and how
/// far the drawing reaches.
struct Canvas {
    node_boxes: Vec<Rect>,
    placed_labels: Vec<Rect>,
    body: String,
    label_text: String,
    min_x: f64,
    min_y: f64,
    max_x: f64,
    max_y: f64,
}

impl Canvas {
    /// Widens the drawing's reach to `(x0, y0)` .. `(x1, y1)`.
    fn reach(&mut self, x0: f64, y0: f64, x1: f64, y1: f64) {
        self.min_x = self.min_x.min(x0);
        self.min_y = self.min_y.min(y0);
        self.max_x = self.max_x.max(x1);
        self.max_y = self.max_y.max(y1);
    }

    /// Draws the label `l` of an edge near its middle `mid`, at the first spot above or
    /// below that overlaps no node and no other label.
    fn label(&mut self, mid: (f64, f64), l: &str) {
        let text = shown(l);
        let w = text_width(&text, 11.0) + 6.0;
        let h = 15.0;
        let mut spot = mid;
        for step in [0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0, 5.0, -5.0] {
            let r = Rect::around(mid.0, mid.1 + step * h, w, h);
            if !self.node_boxes.iter().any(|b| b.overlaps(&r))
                && !self.placed_labels.iter().any(|b| b.overlaps(&r))
            {
                spot = (mid.0, mid.1 + step * h);
                break;
            }
        }
        let r = Rect::around(spot.0, spot.1, w, h);
        self.reach(r.x0 - 8.0, r.y0 - 8.0, r.x1, r.y1);
        self.placed_labels.push(r);
        let _ = writeln!(
            self.label_text,
            "<rect class=\"label-bg\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" \
             height=\"{h:.1}\" rx=\"3\"/>",
            r.x0, r.y0, w
        );
        let _ = writeln!(
            self.label_text,
            "<text class=\"edge-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" \
             dominant-baseline=\"central\"><title>{}</title>{}</text>",
            spot.0,
            spot.1,
            escape(l),
            escape(&text)
        );
    }
}

/// The indices (into `edges`) of edges that close a cycle, found by depth-first search:
/// without them the graph is acyclic.
fn back_edges(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, &(a, b)) in edges.iter().enumerate() {
        out[a].push((b, i));
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut back = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&(w, i)) = out[v].get(*next) {
                *next += 1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => back.push(i),
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    back
}

/// Nodes evenly on a circle, the first at the top, going clockwise; the circle is large
/// enough that neighbouring boxes keep apart.
fn circle(widths: &[f64]) -> Vec<Placed> {
    let n = widths.len();
    let widest = widths.iter().copied().fold(0.0, f64::max);
    let chord = widest + 24.0;
    let r = if n < 2 {
        0.0
    } else {
        (chord / (2.0 * (std::f64::consts::PI / n as f64).sin())).max(90.0)
    };
    widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let a = -std::f64::consts::FRAC_PI_2 + 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            Placed {
                x: r * a.cos(),
                // Squash vertically a little: boxes are wider than tall.
                y: r * a.sin() * 0.8,
                w,
            }
        })
        .collect()
}

/// Nodes in layers by longest path over the (acyclic) `edges`, top to bottom, each
/// layer ordered by its predecessors' mean position and wrapped at [`MAX_ROW_W`].
fn layered(n: usize, edges: &[(usize, usize)], widths: &[f64]) -> Vec<Placed> {
    // Longest-path layering in topological order (Kahn).
    let mut indegree = vec![0usize; n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        indegree[b] += 1;
        succ[a].push(b);
        pred[b].push(a);
    }
    let mut layer = vec![0usize; n];
    let mut queue: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut head = 0;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        for &w in &succ[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push(w);
            }
        }
    }
    let layers = layer.iter().copied().max().unwrap_or(0) + 1;
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); layers];
    for v in 0..n {
        rows[layer[v]].push(v);
    }

    // Order each layer by the mean order of its predecessors (two sweeps down).
    let mut order = vec![0.0f64; n];
    for row in &rows {
        for (i, &v) in row.iter().enumerate() {
            order[v] = i as f64;
        }
    }
    for _ in 0..2 {
        for row in rows.iter_mut().skip(1) {
            let key = |v: usize| {
                if pred[v].is_empty() {
                    order[v]
                } else {
                    pred[v].iter().map(|&p| order[p]).sum::<f64>() / pred[v].len() as f64
                }
            };
            let mut keyed: Vec<(f64, usize)> = row.iter().map(|&v| (key(v), v)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            *row = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in row.iter().enumerate() {
                order[v] = i as f64;
            }
        }
    }

    // Place rows, wrapping wide layers onto further rows, each row centred.
    let mut lines: Vec<Vec<usize>> = Vec::new();
    for row in rows {
        let mut line: Vec<usize> = Vec::new();
        let mut w = 0.0;
        for v in row {
            if !line.is_empty() && w + widths[v] > MAX_ROW_W {
                lines.push(std::mem::take(&mut line));
                w = 0.0;
            }
            w += widths[v] + GAP_X;
            line.push(v);
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    let line_w = |line: &[usize]| -> f64 {
        line.iter().map(|&v| widths[v]).sum::<f64>() + GAP_X * (line.len() as f64 - 1.0)
    };
    let widest = lines.iter().map(|l| line_w(l)).fold(0.0, f64::max);
    let mut pos = vec![
        Placed {
            x: 0.0,
            y: 0.0,
            w: 0.0
        };
        n
    ];
    for (r, line) in lines.iter().enumerate() {
        let mut x = (widest - line_w(line)) / 2.0;
        let y = r as f64 * (NODE_H + GAP_Y);
        for &v in line {
            pos[v] = Placed {
                x: x + widths[v] / 2.0,
                y,
                w: widths[v],
            };
            x += widths[v] + GAP_X;
        }
    }
    pos
}

/// Where the ray from the center of `p` towards `(tx, ty)` leaves its box.
fn border(p: Placed, tx: f64, ty: f64) -> (f64, f64) {
    let (dx, dy) = (tx - p.x, ty - p.y);
    if dx == 0.0 && dy == 0.0 {
        return (p.x, p.y);
    }
    let hw = p.w / 2.0 + 2.0;
    let hh = NODE_H / 2.0 + 2.0;
    let t = (hw / dx.abs()).min(hh / dy.abs());
    (p.x + dx * t, p.y + dy * t)
}

/// A quadratic curve from box `a` to box `b`, bent sideways by `bend` px, and its
/// midpoint (where a label goes).
fn curve(a: Placed, b: Placed, bend: f64) -> (String, (f64, f64)) {
    let (mx, my) = ((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    // Normal to the line from a to b.
    let (nx, ny) = (-dy / len, dx / len);
    let (cx, cy) = (mx + nx * bend * 2.0, my + ny * bend * 2.0);
    let (sx, sy) = border(a, cx, cy);
    let (ex, ey) = border(b, cx, cy);
    let mid = (
        0.25 * sx + 0.5 * cx + 0.25 * ex,
        0.25 * sy + 0.5 * cy + 0.25 * ey,
    );
    (
        format!("M{sx:.1},{sy:.1} Q{cx:.1},{cy:.1} {ex:.1},{ey:.1}"),
        mid,
    )
}

/// A loop on the top left corner of a node, and a spot for its label.
fn self_loop(p: Placed) -> (String, (f64, f64)) {
    let left = p.x - p.w / 2.0;
    let top = p.y - NODE_H / 2.0;
    let (sx, sy) = (left + 14.0, top);
    let (ex, ey) = (left - 2.0, top + 10.0);
    (
        format!(
            "M{sx:.1},{sy:.1} C{:.1},{:.1} {:.1},{:.1} {ex:.1},{ey:.1}",
            sx,
            top - 34.0,
            left - 34.0,
            ey
        ),
        (left - 20.0, top - 24.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_edges_break_every_cycle() {
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3)];
        let back = back_edges(4, &edges);
        assert!(!back.is_empty());
        let rest: Vec<(usize, usize)> = edges
            .iter()
            .enumerate()
            .filter(|(i, _)| !back.contains(i))
            .map(|(_, &e)| e)
            .filter(|(a, b)| a != b)
            .collect();
        assert!(back_edges(4, &rest).is_empty());
    }

    #[test]
    fn layers_follow_longest_paths() {
        // 0 -> 1 -> 2, and 0 -> 2: node 2 is two layers below 0.
        let pos = layered(3, &[(0, 1), (1, 2), (0, 2)], &[50.0, 50.0, 50.0]);
        assert!(pos[0].y < pos[1].y && pos[1].y < pos[2].y);
    }

    #[test]
    fn placed_boxes_do_not_overlap() {
        for n in [1usize, 2, 3, 7, 24, 60] {
            let widths: Vec<f64> = (0..n).map(|i| 44.0 + (i % 5) as f64 * 30.0).collect();
            let mut cases = vec![layered(n, &[], &widths)];
            if n > 1 {
                cases.push(circle(&widths));
            }
            for pos in cases {
                let boxes: Vec<Rect> = pos
                    .iter()
                    .map(|p| Rect::around(p.x, p.y, p.w, NODE_H))
                    .collect();
                for i in 0..n {
                    for j in i + 1..n {
                        assert!(!boxes[i].overlaps(&boxes[j]), "n={n}: {i} and {j}");
                    }
                }
            }
        }
    }

    #[test]
    fn long_labels_are_cut() {
        let s = shown(&"x".repeat(100));
        assert_eq!(s.chars().count(), MAX_LABEL);
        assert!(s.ends_with('…'));
        assert_eq!(shown("a\nb"), "a b");
    }
}

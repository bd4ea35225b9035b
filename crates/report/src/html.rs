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

impl Count {
    /// A tile that only informs (how many requirements, goals, mutants).
    pub fn neutral(label: impl Into<String>, value: usize) -> Count {
        Count {
            label: label.into(),
            value,
            tone: Tone::Neutral,
        }
    }

    /// A tile that counts findings: good when there are none, else `tone`.
    pub fn findings(label: impl Into<String>, value: usize, tone: Tone) -> Count {
        Count {
            label: label.into(),
            value,
            tone: if value == 0 { Tone::Good } else { tone },
        }
    }
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

mod graph;

use std::fmt::Write as _;

/// Escapes `s` for HTML text and for double- or single-quoted attribute values.
///
/// `&`, `<`, `>`, `"` and `'` become character references, so no text can open a tag
/// (a `<script>` in a finding shows as the text `<script>`) or end an attribute. C0
/// control characters other than tab, line feed and carriage return, which HTML does
/// not allow in a document, are replaced by their Unicode control pictures (U+0000
/// becomes `␀`).
pub fn escape(s: &str) -> String {
    escape_markup(s, Some("&#39;"), |out, c| match c {
        '\t' | '\n' | '\r' => out.push(c),
        '\u{0}'..='\u{1F}' | '\u{7F}' => {
            let picture = if c == '\u{7F}' {
                '\u{2421}'
            } else {
                char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')
            };
            out.push(picture);
        }
        // Bidirectional overrides and isolates would reorder the text around them
        // (a name that reads backwards): shown as their code point instead.
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
        c => out.push(c),
    })
}

/// Escapes `s` for markup (HTML or XML): `&`, `<` and `>` always become character
/// references; with `apostrophe` (the reference that stands for `'`: `&#39;` or
/// `&apos;`), `"` and `'` do too, for quoted attribute values. `other` appends what
/// stands for every other character: the escapers differ in what they do with control
/// characters.
pub fn escape_markup(
    s: &str,
    apostrophe: Option<&str>,
    mut other: impl FnMut(&mut String, char),
) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match (c, apostrophe) {
            ('&', _) => out.push_str("&amp;"),
            ('<', _) => out.push_str("&lt;"),
            ('>', _) => out.push_str("&gt;"),
            ('"', Some(_)) => out.push_str("&quot;"),
            ('\'', Some(a)) => out.push_str(a),
            _ => other(&mut out, c),
        }
    }
    out
}

/// The CSS class of a tone.
fn tone(t: Tone) -> &'static str {
    match t {
        Tone::Good => "tone-good",
        Tone::Bad => "tone-bad",
        Tone::Warn => "tone-warn",
        Tone::Neutral => "tone-neutral",
    }
}

/// The page's style sheet: light and dark colors, print rules.
const STYLE: &str = r#"
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --card: #f6f8fa; --border: #d0d7de;
  --good: #1a7f37; --good-bg: #dafbe1; --bad: #cf222e; --bad-bg: #ffebe9;
  --warn: #9a6700; --warn-bg: #fff8c5; --neutral: #0969da; --neutral-bg: #ddf4ff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --card: #161b22; --border: #3d444d;
    --good: #3fb950; --good-bg: #12261e; --bad: #f85149; --bad-bg: #2d1214;
    --warn: #d29922; --warn-bg: #272115; --neutral: #58a6ff; --neutral-bg: #121d2f;
  }
}
.tone-good { --tone: var(--good); --tone-bg: var(--good-bg); }
.tone-bad { --tone: var(--bad); --tone-bg: var(--bad-bg); }
.tone-warn { --tone: var(--warn); --tone-bg: var(--warn-bg); }
.tone-neutral { --tone: var(--neutral); --tone-bg: var(--neutral-bg); }
* { box-sizing: border-box; }
body {
  margin: 0 auto; padding: 1.5rem; max-width: 72rem; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif;
}
h1 { margin: 0 0 .25rem; font-size: 1.8rem; }
h2 { margin: 2rem 0 .75rem; padding-bottom: .25rem; border-bottom: 1px solid var(--border); font-size: 1.35rem; }
h3, h4, h5, h6 { margin: 0; font-size: 1.05rem; }
p { margin: .5rem 0; white-space: pre-line; overflow-wrap: anywhere; }
.subtitle { color: var(--muted); margin: 0; }
.tiles { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1.25rem 0; }
.tile {
  min-width: 9rem; padding: .6rem 1rem; border-radius: 8px; background: var(--tone-bg);
  border: 1px solid var(--tone); border-left-width: 6px;
}
.tile-value { font-size: 1.9rem; font-weight: 700; line-height: 1.1; color: var(--tone); }
.tile-label { color: var(--fg); }
pre {
  margin: .5rem 0; padding: .6rem .8rem; background: var(--card); border: 1px solid var(--border);
  border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere;
  font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace;
}
table { border-collapse: collapse; margin: .5rem 0; width: 100%; }
th, td { border: 1px solid var(--border); padding: .3rem .6rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: var(--card); }
.item {
  margin: .75rem 0; padding: .6rem .9rem; background: var(--card); border: 1px solid var(--border);
  border-left: 6px solid var(--tone); border-radius: 6px;
}
.item > header { display: flex; align-items: center; gap: .6rem; flex-wrap: wrap; }
.badge {
  display: inline-block; padding: .05rem .55rem; border-radius: 999px; background: var(--tone);
  color: var(--bg); font-size: .8rem; font-weight: 600;
}
figure { margin: .75rem 0; }
figcaption { color: var(--muted); font-size: .9rem; margin-bottom: .35rem; }
svg.graph { display: block; max-width: 100%; height: auto; }
svg.graph .node rect { fill: var(--tone-bg); stroke: var(--tone); stroke-width: 1.5; }
svg.graph .node text { fill: var(--fg); font: 13px system-ui, "Liberation Sans", sans-serif; }
svg.graph .edge { fill: none; stroke: var(--muted); stroke-width: 1.4; }
svg.graph .arrowhead { fill: var(--muted); }
svg.graph .edge-label {
  fill: var(--fg); font: 11px system-ui, "Liberation Sans", sans-serif;
}
svg.graph .label-bg { fill: var(--bg); opacity: .85; }
.empty { color: var(--muted); font-style: italic; }
.bars { display: grid; grid-template-columns: minmax(6rem, max-content) minmax(8rem, 1fr) max-content; gap: .35rem .75rem; align-items: center; }
.bars figcaption, .bars .empty { grid-column: 1 / -1; }
.bar-track { height: 1rem; background: var(--card); border: 1px solid var(--border); border-radius: 4px; overflow: hidden; }
.bar-fill { display: block; height: 100%; background: var(--tone); }
.bar-num { font-variant-numeric: tabular-nums; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .85rem; }
@media print {
  :root {
    --bg: #ffffff; --fg: #000000; --muted: #444444; --card: #ffffff; --border: #999999;
    --good: #1a7f37; --good-bg: #eefbf0; --bad: #cf222e; --bad-bg: #fff0ef;
    --warn: #9a6700; --warn-bg: #fffbe0; --neutral: #0969da; --neutral-bg: #eef8ff;
  }
  body { max-width: none; padding: 0; font-size: 11pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .tile, .item, figure, tr, pre { break-inside: avoid; }
  h2 { break-after: avoid; }
}
"#;

/// Renders `page` as one self-contained HTML5 document.
///
/// Nothing is loaded from elsewhere: the style sheet is inline, graphs are inline SVG,
/// bar charts are plain elements, and there is no script. A Content-Security-Policy in
/// the page forbids scripts and any fetch, should a viewer be asked to make one. All text
/// from `page` is escaped with [`escape`].
pub fn render(page: &Page) -> String {
    let mut r = Renderer::default();
    r.page(page);
    r.out
}

/// Holds the output and the number of graphs drawn so far (for unique SVG ids).
#[derive(Default)]
struct Renderer {
    out: String,
    graphs: usize,
}

impl Renderer {
    fn page(&mut self, page: &Page) {
        let title = escape(&page.title);
        // Writing into a String cannot fail.
        let _ = write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"color-scheme\" content=\"light dark\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'\">\n\
             <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header>\n\
             <h1>{title}</h1>\n"
        );
        if let Some(s) = &page.subtitle {
            let _ = writeln!(self.out, "<p class=\"subtitle\">{}</p>", escape(s));
        }
        self.out.push_str("</header>\n");
        if !page.counts.is_empty() {
            self.out.push_str("<div class=\"tiles\">\n");
            for c in &page.counts {
                let _ = writeln!(
                    self.out,
                    "<div class=\"tile {}\"><div class=\"tile-value\">{}</div>\
                     <div class=\"tile-label\">{}</div></div>",
                    tone(c.tone),
                    c.value,
                    escape(&c.label)
                );
            }
            self.out.push_str("</div>\n");
        }
        self.out.push_str("<main>\n");
        for s in &page.sections {
            let _ = writeln!(self.out, "<section>\n<h2>{}</h2>", escape(&s.heading));
            self.blocks(&s.blocks, 3);
            self.out.push_str("</section>\n");
        }
        self.out.push_str(
            "</main>\n<footer>Made by vera; this page loads nothing from elsewhere.</footer>\n\
             </body>\n</html>\n",
        );
    }

    /// Renders blocks; items among them get headings of `level` (3 to 6).
    fn blocks(&mut self, blocks: &[Block], level: usize) {
        for b in blocks {
            self.block(b, level);
        }
    }

    fn block(&mut self, b: &Block, level: usize) {
        match b {
            Block::Text(t) => {
                let _ = writeln!(self.out, "<p>{}</p>", escape(t));
            }
            Block::Code(c) => {
                let _ = writeln!(self.out, "<pre><code>{}</code></pre>", escape(c));
            }
            Block::Table { headers, rows } => self.table(headers, rows),
            Block::Item {
                title,
                badge,
                tone: t,
                blocks,
            } => {
                let h = level.min(6);
                let _ = writeln!(
                    self.out,
                    "<article class=\"item {}\">\n<header><h{h}>{}</h{h}>\
                     <span class=\"badge\">{}</span></header>",
                    tone(*t),
                    escape(title),
                    escape(badge)
                );
                self.blocks(blocks, level + 1);
                self.out.push_str("</article>\n");
            }
            Block::Graph {
                caption,
                nodes,
                edges,
            } => {
                self.graphs += 1;
                let _ = writeln!(
                    self.out,
                    "<figure class=\"graph\">\n<figcaption>{}</figcaption>",
                    escape(caption)
                );
                if nodes.is_empty() {
                    self.out
                        .push_str("<p class=\"empty\">No nodes to draw.</p>\n");
                } else {
                    graph::svg(&mut self.out, nodes, edges, self.graphs, caption);
                }
                self.out.push_str("</figure>\n");
            }
            Block::Bars { caption, bars } => self.bars(caption, bars),
        }
    }

    fn table(&mut self, headers: &[String], rows: &[Vec<String>]) {
        let width = rows.iter().map(Vec::len).fold(headers.len(), usize::max);
        self.out.push_str("<table>\n");
        if !headers.is_empty() {
            self.out.push_str("<thead><tr>");
            for i in 0..width {
                let h = headers.get(i).map(String::as_str).unwrap_or("");
                let _ = write!(self.out, "<th>{}</th>", escape(h));
            }
            self.out.push_str("</tr></thead>\n");
        }
        self.out.push_str("<tbody>\n");
        for row in rows {
            self.out.push_str("<tr>");
            for i in 0..width {
                let c = row.get(i).map(String::as_str).unwrap_or("");
                let _ = write!(self.out, "<td>{}</td>", escape(c));
            }
            self.out.push_str("</tr>\n");
        }
        self.out.push_str("</tbody>\n</table>\n");
    }

    fn bars(&mut self, caption: &str, bars: &[Bar]) {
        let _ = writeln!(
            self.out,
            "<figure class=\"bars\">\n<figcaption>{}</figcaption>",
            escape(caption)
        );
        if bars.is_empty() {
            self.out
                .push_str("<p class=\"empty\">No bars to draw.</p>\n");
        }
        for b in bars {
            let share = if b.max.is_finite() && b.max > 0.0 && b.value.is_finite() {
                (b.value / b.max).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let pct = share * 100.0;
            let _ = writeln!(
                self.out,
                "<span class=\"bar-label\">{label}</span>\
                 <span class=\"bar-track\" role=\"img\" aria-label=\"{label}: {v} of {m}\">\
                 <span class=\"bar-fill {tone}\" style=\"width:{pct:.1}%\"></span></span>\
                 <span class=\"bar-num\">{v} / {m} ({p}%)</span>",
                label = escape(&b.label),
                tone = tone(b.tone),
                v = number(b.value),
                m = number(b.max),
                p = number((pct * 10.0).round() / 10.0),
            );
        }
        self.out.push_str("</figure>\n");
    }
}

/// A number as a person reads it: whole numbers without decimals, others with at most
/// two.
fn number(x: f64) -> String {
    if !x.is_finite() {
        return "?".into();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Page {
        Page {
            title: "Audit <b>".into(),
            subtitle: Some("spec.req".into()),
            counts: vec![
                Count {
                    label: "conflicts".into(),
                    value: 2,
                    tone: Tone::Bad,
                },
                Count {
                    label: "fine".into(),
                    value: 7,
                    tone: Tone::Good,
                },
            ],
            sections: vec![Section {
                heading: "Findings".into(),
                blocks: vec![
                    Block::Text("one\ntwo".into()),
                    Block::Code("(assert (< x 0))".into()),
                    Block::Table {
                        headers: vec!["id".into(), "text".into()],
                        rows: vec![vec!["R1".into()], vec!["R2".into(), "b".into(), "c".into()]],
                    },
                    Block::Item {
                        title: "R3".into(),
                        badge: "vacuous".into(),
                        tone: Tone::Warn,
                        blocks: vec![Block::Item {
                            title: "inner".into(),
                            badge: "ok".into(),
                            tone: Tone::Good,
                            blocks: vec![],
                        }],
                    },
                    Block::Graph {
                        caption: "conflict".into(),
                        nodes: vec![
                            Node {
                                label: "R1".into(),
                                tone: Tone::Bad,
                            },
                            Node {
                                label: "R2".into(),
                                tone: Tone::Bad,
                            },
                        ],
                        edges: vec![
                            Edge {
                                from: 0,
                                to: 1,
                                label: Some("implies".into()),
                            },
                            Edge {
                                from: 1,
                                to: 0,
                                label: None,
                            },
                            // Out of range: ignored.
                            Edge {
                                from: 0,
                                to: 9,
                                label: None,
                            },
                        ],
                    },
                    Block::Bars {
                        caption: "detected".into(),
                        bars: vec![
                            Bar {
                                label: "mutants".into(),
                                value: 21.0,
                                max: 50.0,
                                tone: Tone::Good,
                            },
                            Bar {
                                label: "none".into(),
                                value: 3.0,
                                max: 0.0,
                                tone: Tone::Neutral,
                            },
                        ],
                    },
                ],
            }],
        }
    }

    #[test]
    fn escape_covers_markup_quotes_and_controls() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("a\u{0}b\u{1B}c\td\ne"), "a\u{2400}b\u{241B}c\td\ne");
        // A right-to-left override would show "R1 gpj.exe" reversed: shown as a code.
        assert_eq!(escape("R1\u{202E}exe.jpg"), "R1\\u{202e}exe.jpg");
        assert_eq!(escape("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
    }

    #[test]
    fn page_structure() {
        let html = render(&sample());
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert!(html.ends_with("</html>\n"));
        assert!(html.contains("<title>Audit &lt;b&gt;</title>"));
        assert!(html.contains("<h1>Audit &lt;b&gt;</h1>"));
        assert!(html.contains("<p class=\"subtitle\">spec.req</p>"));
        assert!(html.contains("<div class=\"tile tone-bad\"><div class=\"tile-value\">2</div>"));
        assert!(html.contains("<h2>Findings</h2>"));
        assert!(html.contains("<p>one\ntwo</p>"));
        assert!(html.contains("<pre><code>(assert (&lt; x 0))</code></pre>"));
        // Short rows are padded, long ones keep their cells.
        assert!(html.contains("<tr><td>R1</td><td></td><td></td></tr>"));
        assert!(html.contains("<tr><td>R2</td><td>b</td><td>c</td></tr>"));
        assert!(html.contains("<article class=\"item tone-warn\">"));
        assert!(html.contains("<h3>R3</h3><span class=\"badge\">vacuous</span>"));
        assert!(html.contains("<h4>inner</h4>"));
        assert_eq!(html.matches("<svg").count(), 1);
        assert_eq!(html.matches("<g class=\"node tone-bad\">").count(), 2);
        assert_eq!(html.matches("class=\"edge\"").count(), 2);
        assert!(html.contains(">implies</text>"));
        assert!(html.contains("style=\"width:42.0%\""));
        assert!(html.contains("21 / 50 (42%)"));
        assert!(html.contains("3 / 0 (0%)"));
        assert_eq!(
            html.matches("<section>").count(),
            html.matches("</section>").count()
        );
        assert_eq!(
            html.matches("<article").count(),
            html.matches("</article>").count()
        );
        assert_eq!(
            html.matches("<figure").count(),
            html.matches("</figure>").count()
        );
    }

    #[test]
    fn nothing_external_and_no_script() {
        let html = render(&sample());
        assert!(!html.contains("<script"));
        assert!(!html.contains("<link"));
        assert!(!html.contains("<img"));
        assert!(!html.contains("@import"));
        let without_ns = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!without_ns.contains("http:") && !without_ns.contains("https:"));
        assert!(
            !without_ns.contains("//"),
            "no protocol-relative references"
        );
    }

    #[test]
    fn script_in_any_text_stays_text() {
        let evil = "<script>alert(1)</script>";
        let mut page = sample();
        page.title = evil.into();
        page.subtitle = Some(evil.into());
        page.counts[0].label = evil.into();
        let s = &mut page.sections[0];
        s.heading = evil.into();
        s.blocks = vec![
            Block::Text(evil.into()),
            Block::Code(evil.into()),
            Block::Table {
                headers: vec![evil.into()],
                rows: vec![vec![evil.into()]],
            },
            Block::Item {
                title: evil.into(),
                badge: evil.into(),
                tone: Tone::Bad,
                blocks: vec![],
            },
            Block::Graph {
                caption: evil.into(),
                nodes: vec![Node {
                    label: evil.into(),
                    tone: Tone::Bad,
                }],
                edges: vec![Edge {
                    from: 0,
                    to: 0,
                    label: Some(evil.into()),
                }],
            },
            Block::Bars {
                caption: evil.into(),
                bars: vec![Bar {
                    label: evil.into(),
                    value: 1.0,
                    max: 2.0,
                    tone: Tone::Warn,
                }],
            },
        ];
        let html = render(&page);
        assert!(!html.to_ascii_lowercase().contains("<script"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    }

    #[test]
    fn graphs_of_any_shape_render() {
        let node = |i: usize| Node {
            label: format!("requirement number {i}"),
            tone: Tone::Neutral,
        };
        let edge = |from, to| Edge {
            from,
            to,
            label: Some(format!("{from}->{to}")),
        };
        let shapes: Vec<(Vec<Node>, Vec<Edge>)> = vec![
            (vec![], vec![]),
            (vec![node(0)], vec![]),
            (vec![node(0)], vec![edge(0, 0)]),
            (
                (0..60).map(node).collect(),
                (0..59).map(|i| edge(i, i + 1)).collect(),
            ),
            (
                (0..60).map(node).collect(),
                (0..60).map(|i| edge(i, (i + 1) % 60)).collect(),
            ),
            ((0..55).map(node).collect(), vec![]),
        ];
        for (i, (nodes, edges)) in shapes.into_iter().enumerate() {
            let n = nodes.len();
            let page = Page {
                title: "g".into(),
                subtitle: None,
                counts: vec![],
                sections: vec![Section {
                    heading: "g".into(),
                    blocks: vec![Block::Graph {
                        caption: "c".into(),
                        nodes,
                        edges,
                    }],
                }],
            };
            let html = render(&page);
            assert_eq!(html.matches("<g class=\"node").count(), n, "shape {i}");
            if n == 0 {
                assert!(html.contains("No nodes to draw."));
            }
            assert!(!html.contains("NaN") && !html.contains("inf"), "shape {i}");
        }
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(2.0 / 3.0), "0.67");
        assert_eq!(number(f64::NAN), "?");
    }
}

//! The report of `vera table check`: gaps, conflicts and overlaps of a rate or fee table
//! (the `table` crate), for a terminal, as JSON (`vera.table-check.v1`), as SARIF and as a
//! page.

use crate::text::{clean, paint, Paint};
use pipeline::cells::Reading;
use report::{Finding, Findings, Level, Location, Rule, Status};
use std::fmt::Write as _;
use table::{Kind, ProblemKind};

/// `vera.table-check.v1`.
#[derive(serde::Serialize)]
struct TableJson<'a> {
    schema: &'static str,
    #[serde(flatten)]
    report: &'a table::Report,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    model_readings: &'a [Reading],
    #[serde(skip_serializing_if = "Option::is_none")]
    llm: Option<&'a llm::Accounting>,
}

/// The report of `vera table check`.
pub struct TableRun {
    /// What the check found.
    pub report: table::Report,
    /// With --llm: the model's rewritings of unreadable cells (accepted or not).
    pub readings: Vec<Reading>,
    /// Line of each reading's row (finding rows are row lines).
    pub reading_rows: Vec<u32>,
    /// The group of each reading's row.
    pub reading_groups: Vec<table::Group>,
    /// The model's accounting, when it was asked.
    pub llm: Option<llm::Accounting>,
}

impl TableRun {
    /// The report of a check of `read.table`, with the model's readings of its cells
    /// (each with its row's line and its group, as the check keys it).
    pub fn of(report: table::Report, read: pipeline::cells::ReadTable) -> Self {
        let group = |r: &Reading| read.table.group_of(r.row, &report.keys);
        let reading_groups = read.readings.iter().map(group).collect();
        TableRun {
            readings: read.readings,
            reading_rows: read.rows,
            llm: read.llm,
            report,
            reading_groups,
        }
    }
}

const SCHEMA: &str = "vera.table-check.v1";

/// The finding kinds of a table check (SARIF rules).
const RULES: &[Rule] = &[
    Rule {
        id: "VERA-TABLE-GAP",
        name: "TableGap",
        short: "Inputs in the checked range where no row of the group applies.",
        help: "Add a row for the region, widen a neighbouring row, or narrow the range with --range if the inputs cannot occur.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TABLE-CONFLICT",
        name: "TableConflict",
        short: "Two rows of the group apply to the same inputs with different outcomes.",
        help: "Decide which row is meant for the region and make the rows' conditions disjoint.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TABLE-OVERLAP",
        name: "TableOverlap",
        short: "Two rows of the group apply to the same inputs with the same outcome.",
        help: "Harmless for the result, but one of the rows is redundant there; make the conditions disjoint.",
        level: Level::Warning,
    },
    Rule {
        id: "VERA-TABLE-CELL",
        name: "TableCell",
        short: "A cell, row or group that could not be used (unreadable cell, missing outcome, empty group, similar keys).",
        help: "Rewrite the cell in one of the shapes of docs/tables.md, or fill in the missing value.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TABLE-MODEL-READING",
        name: "TableModelReading",
        short: "A cell the parser cannot read, checked as the language model rewrote it (--llm); not reviewed.",
        help: "Check that the rewriting means what the cell says, then write it into the table so the check no longer rests on the model.",
        level: Level::Error,
    },
    Rule {
        id: "VERA-TABLE-UNDECIDED",
        name: "Undecided",
        short: "The solver gave no answer to a question of the check; nothing is claimed about it.",
        help: "Raise --timeout or try the other solver.",
        level: Level::Error,
    },
];

fn kind_rule(k: Kind) -> &'static str {
    match k {
        Kind::Gap => "VERA-TABLE-GAP",
        Kind::Conflict => "VERA-TABLE-CONFLICT",
        Kind::Overlap => "VERA-TABLE-OVERLAP",
    }
}

fn problem_name(k: ProblemKind) -> &'static str {
    match k {
        ProblemKind::Unreadable => "unreadable cell",
        ProblemKind::NoOutcome => "no outcome",
        ProblemKind::EmptyGroup => "empty group",
        ProblemKind::SimilarKeys => "similar keys",
    }
}

fn witness_text(p: &table::Point) -> String {
    if p.0.is_empty() {
        return "the table has no input".into();
    }
    p.0.iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn lines(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

impl TableRun {
    /// The rows among `rows` whose cells were read by the model.
    fn model_rows(&self, rows: &[u32]) -> Vec<u32> {
        let mut v: Vec<u32> = rows
            .iter()
            .copied()
            .filter(|l| {
                self.readings
                    .iter()
                    .zip(&self.reading_rows)
                    .any(|(x, row)| x.reading.is_some() && row == l)
            })
            .collect();
        v.dedup();
        v
    }

    fn used_readings(&self) -> usize {
        self.readings.iter().filter(|x| x.reading.is_some()).count()
    }

    fn text(&self) -> String {
        let r = &self.report;
        let mut o = String::new();
        let inputs: Vec<String> = r
            .inputs
            .iter()
            .map(|i| format!("{} ({})", clean(&i.name), i.meaning))
            .collect();
        let _ = writeln!(
            o,
            "{}: {} row{}",
            clean(&r.file),
            r.rows,
            if r.rows == 1 { "" } else { "s" }
        );
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.iter().map(|x| clean(x)).collect::<Vec<_>>().join(", ")
            }
        };
        let _ = writeln!(o, "  keys: {}", list(&r.keys));
        let _ = writeln!(o, "  when: {}", list(&inputs));
        let _ = writeln!(o, "  then: {}", list(&r.outcomes));
        if !r.ignored.is_empty() {
            let _ = writeln!(o, "  ignored: {}", list(&r.ignored));
        }
        for p in &r.problems {
            let at = match p.column {
                Some(c) => format!("{}:{}:{c}", clean(&r.file), p.line),
                None => format!("{}:{}", clean(&r.file), p.line),
            };
            let _ = writeln!(
                o,
                "{at}: {}: {}",
                paint(Paint::Bad, problem_name(p.kind)),
                clean(&p.message)
            );
        }
        self.readings_text(&mut o);
        for g in &r.groups {
            self.group_text(&mut o, g);
        }
        for u in &r.undecided {
            let _ = writeln!(
                o,
                "{}: group {} [{}]: {}: {}",
                paint(Paint::Warn, "undecided"),
                clean(&u.group.to_string()),
                clean(&u.outcome),
                clean(&u.question),
                clean(u.reason.as_str())
            );
        }
        let (gaps, conflicts, overlaps) = r.findings.iter().fold((0, 0, 0), |(g, c, v), f| match f
            .kind
        {
            Kind::Gap => (g + 1, c, v),
            Kind::Conflict => (g, c + 1, v),
            Kind::Overlap => (g, c, v + 1),
        });
        let _ = writeln!(
            o,
            "\n{} checked: {gaps} gaps, {conflicts} conflicts, {overlaps} overlaps, {} cell problems, {} undecided ({})",
            match r.groups.len() {
                1 => "1 group".to_string(),
                n => format!("{n} groups"),
            },
            r.problems.len(),
            r.undecided.len(),
            r.solver
        );
        if self.used_readings() > 0 {
            let n = self.used_readings();
            let _ = writeln!(
                o,
                "{}",
                paint(
                    Paint::Warn,
                    &format!(
                        "{n} cell{} checked as the model read {}: not a result about the table as written until reviewed",
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "it" } else { "them" }
                    )
                )
            );
        }
        o
    }

    /// The cells the language model read, each with what it read or why it did not.
    fn readings_text(&self, o: &mut String) {
        let r = &self.report;
        if self.readings.is_empty() {
            return;
        }
        let _ = writeln!(
            o,
            "{}",
            paint(
                Paint::Warn,
                "cells read by the language model (not reviewed; check each, then write it into the table):"
            )
        );
        for x in &self.readings {
            let at = format!("{}:{}:{}", clean(&r.file), x.line, x.column);
            let what = match &x.reading {
                Some(t) => format!("read as `{}`", clean(t)),
                None => format!(
                    "not read ({})",
                    clean(x.reason.as_deref().unwrap_or("no answer"))
                ),
            };
            let _ = writeln!(
                o,
                "  {at} [{}]: `{}` {what}",
                clean(&x.header),
                crate::text::excerpt(&clean(x.original.trim()), 80)
            );
        }
    }

    /// One group of rows: its verdict, ranges and the model readings it rests on, then
    /// its findings.
    fn group_text(&self, o: &mut String, g: &table::analyze::Summary) {
        let r = &self.report;
        let head = if r.outcomes.len() > 1 {
            format!("{} [{}]", clean(&g.group.to_string()), clean(&g.outcome))
        } else {
            clean(&g.group.to_string())
        };
        let ranges: Vec<String> = g
            .ranges
            .iter()
            .map(|x| format!("{} in {} ({})", clean(&x.input), x.text, x.from))
            .collect();
        let mut counts = Vec::new();
        for (n, what) in [
            (g.gaps, "gap"),
            (g.conflicts, "conflict"),
            (g.overlaps, "overlap"),
        ] {
            if n > 0 {
                counts.push(format!("{n} {what}{}", if n == 1 { "" } else { "s" }));
            }
        }
        let verdict = if counts.is_empty() {
            paint(Paint::Good, "complete and unambiguous")
        } else {
            paint(Paint::Bad, &counts.join(", "))
        };
        let mut read: Vec<u32> = self
            .readings
            .iter()
            .zip(&self.reading_rows)
            .zip(&self.reading_groups)
            .filter(|((x, _), grp)| x.reading.is_some() && **grp == g.group)
            .map(|((_, row), _)| *row)
            .collect();
        read.dedup();
        let _ = writeln!(
            o,
            "\n{} (line {}, {} row{}{}): {verdict}{}{}",
            paint(Paint::Id, &head),
            g.line,
            g.rows,
            if g.rows == 1 { "" } else { "s" },
            if ranges.is_empty() {
                String::new()
            } else {
                format!("; {}", ranges.join(", "))
            },
            if g.truncated {
                " (more not listed)"
            } else {
                ""
            },
            if read.is_empty() {
                String::new()
            } else {
                paint(
                    Paint::Warn,
                    &format!(
                        " [rests on the model's reading of row{} {}]",
                        if read.len() == 1 { "" } else { "s" },
                        lines(&read)
                    ),
                )
            }
        );
        for f in r
            .findings
            .iter()
            .filter(|f| f.group == g.group && f.outcome == g.outcome)
        {
            self.finding_text(o, f);
        }
        if !g.gaps_exact {
            let _ = writeln!(
                o,
                "  {}",
                paint(
                    Paint::Warn,
                    "not confirmed that these are all the gaps (see undecided)"
                )
            );
        }
    }

    /// One finding: its kind, region, example, values and rows.
    fn finding_text(&self, o: &mut String, f: &table::analyze::Finding) {
        let rows = if f.rows.is_empty() {
            String::new()
        } else if f.kind == Kind::Gap {
            format!("; next to rows {}", lines(&f.rows))
        } else {
            format!("; rows {}", lines(&f.rows))
        };
        let values = if f.values.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                f.values
                    .iter()
                    .map(|v| format!("row {} gives {}", v.row, v.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let read: Vec<u32> = self.model_rows(&f.rows);
        let rows = if read.is_empty() {
            rows
        } else {
            format!(
                "{rows}; rests on the model's reading of row{} {}",
                if read.len() == 1 { "" } else { "s" },
                lines(&read)
            )
        };
        let _ = writeln!(
            o,
            "  {:<8} {}{}{values}{rows}",
            f.kind.name(),
            clean(&f.region.text),
            if f.witness.0.is_empty() {
                String::new()
            } else {
                format!(": e.g. {}", clean(&witness_text(&f.witness)))
            }
        );
    }
}

impl report::Report for TableRun {
    fn schema(&self) -> &'static str {
        SCHEMA
    }

    fn status(&self) -> Status {
        let r = &self.report;
        Status::of(
            !r.undecided.is_empty(),
            !r.findings.is_empty() || !r.problems.is_empty() || self.used_readings() > 0,
        )
    }

    fn human(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.text().as_bytes())
    }

    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&TableJson {
            schema: SCHEMA,
            report: &self.report,
            model_readings: &self.readings,
            llm: self.llm.as_ref(),
        })
    }

    fn findings(&self) -> Option<Findings> {
        let r = &self.report;
        let at = |line: u32, column: Option<u32>| Location {
            file: r.file.clone(),
            line: Some(line),
            column,
            message: None,
        };
        let mut out = Vec::new();
        for p in &r.problems {
            out.push(Finding {
                rule: "VERA-TABLE-CELL",
                level: Level::Error,
                message: format!("{}: {}", problem_name(p.kind), p.message),
                location: Some(at(p.line, p.column)),
                related: p
                    .lines
                    .iter()
                    .filter(|l| **l != p.line)
                    .map(|l| at(*l, None).with_message("also involved"))
                    .collect(),
            });
        }
        for x in self.readings.iter().filter(|x| x.reading.is_some()) {
            out.push(Finding {
                rule: "VERA-TABLE-MODEL-READING",
                level: Level::Error,
                message: format!(
                    "`{}` in column `{}` is checked as the model read it: `{}` (not reviewed)",
                    crate::text::excerpt(x.original.trim(), 80),
                    x.header,
                    x.reading.as_deref().unwrap_or_default()
                ),
                location: Some(at(x.line, Some(x.column))),
                related: vec![],
            });
        }
        for f in &r.findings {
            let level = if f.kind == Kind::Overlap {
                Level::Warning
            } else {
                Level::Error
            };
            let group = if r.outcomes.len() > 1 {
                format!("{} [{}]", f.group, f.outcome)
            } else {
                f.group.to_string()
            };
            let line = f.rows.first().copied().or_else(|| {
                r.groups
                    .iter()
                    .find(|g| g.group == f.group && g.outcome == f.outcome)
                    .map(|g| g.line)
            });
            out.push(Finding {
                rule: kind_rule(f.kind),
                level,
                message: format!(
                    "{} in group {group}: {} (e.g. {}); SMT-LIB: {}",
                    f.kind.name(),
                    f.region.text,
                    witness_text(&f.witness),
                    f.region.smt
                ),
                location: line.map(|l| at(l, None)),
                related: f
                    .rows
                    .iter()
                    .skip(1)
                    .map(|l| at(*l, None).with_message(format!("row {l}")))
                    .collect(),
            });
        }
        for u in &r.undecided {
            out.push(Finding {
                rule: "VERA-TABLE-UNDECIDED",
                level: Level::Error,
                message: format!(
                    "group {} [{}]: {}: {}",
                    u.group, u.outcome, u.question, u.reason
                ),
                location: Some(Location::new(r.file.clone(), None)),
                related: vec![],
            });
        }
        Some(Findings {
            command: "table check".into(),
            rules: RULES.to_vec(),
            findings: out,
            files: vec![r.file.clone()],
        })
    }
}

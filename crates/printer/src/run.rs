//! The report of `vera run DOC`: the appendix-A-shaped table of a whole run (extract,
//! schema, formalize, audit, ambiguity, round trip), its text and its page.

use crate::text::{excerpt, paint, Paint};
use crate::Rendered;
use pipeline::run::{RunReport, RUN_TAG};
use report::Status;
use std::fmt::Write as _;

/// `vera.run.v1`.
#[derive(serde::Serialize)]
struct RunJson<'a> {
    schema: &'static str,
    #[serde(flatten)]
    report: &'a RunReport,
    /// The appendix-A table, row by row.
    table: Vec<Row>,
    llm: llm::Accounting,
    seconds: f64,
}

/// One row of the summary table.
#[derive(serde::Serialize)]
struct Row {
    measure: &'static str,
    value: String,
}

fn of(k: usize, n: usize) -> String {
    if n == 0 {
        format!("{k} of 0")
    } else {
        format!("{k} of {n} ({:.1}%)", 100.0 * k as f64 / n as f64)
    }
}

/// The table in the shape of the VeriMed paper's appendix A, with what the paper does
/// not report (audit findings, ambiguity flags) and every stage's count.
fn table(r: &RunReport) -> Vec<Row> {
    let mut rows = vec![Row {
        measure: "requirements extracted",
        value: format!(
            "{} ({} marked, {} candidates); {} in this run",
            r.extract.found, r.extract.marked, r.extract.candidates, r.extract.selected
        ),
    }];
    if let Some(s) = &r.schema {
        rows.push(Row {
            measure: "schema",
            value: match &s.given {
                Some(g) => format!(
                    "{} variables, {} enumerations, {} domain constraints; given ({g}), not drafted",
                    s.variables, s.enums, s.domain
                ),
                None => format!(
                    "{} variables, {} enumerations, {} domain constraints; {} findings",
                    s.variables,
                    s.enums,
                    s.domain,
                    s.findings.len()
                ),
            },
        });
    }
    if let Some(f) = &r.formalize {
        rows.push(Row {
            measure: "formalized, first attempt",
            value: of(f.first_attempt, f.requirements),
        });
        rows.push(Row {
            measure: "formalized, after repair",
            value: of(f.first_attempt + f.after_repair, f.requirements),
        });
        let p = &f.by_path;
        if p.parser + p.form > 0 || !f.flagged.is_empty() {
            // Only runs with the parser or forms have these (the tables of runs of the
            // SMT-LIB path stay as they were).
            rows.push(Row {
                measure: "formalized by path",
                value: format!(
                    "{} controlled English (no model), {} voted forms, {} SMT-LIB",
                    p.parser, p.form, p.smtlib
                ),
            });
            rows.push(Row {
                measure: "flagged for review (forms disagree)",
                value: f.flagged.len().to_string(),
            });
        }
        rows.push(Row {
            measure: "not formalized",
            value: f.failed.len().to_string(),
        });
        if f.kept > 0 {
            rows.push(Row {
                measure: "formulas kept from the given schema",
                value: f.kept.to_string(),
            });
        }
    }
    if let Some(t) = &r.roundtrip {
        rows.push(Row {
            measure: "round trip equivalent, first pass",
            value: of(t.equivalent_first, t.checked),
        });
        rows.push(Row {
            measure: "round trip equivalent, after one repair",
            value: of(t.equivalent_after_repair, t.checked),
        });
        rows.push(Row {
            measure: "mean text similarity (lexical cosine)",
            value: t
                .mean_similarity
                .map_or("-".into(), |s| format!("{:.1}%", 100.0 * s)),
        });
    }
    if let Some(a) = &r.audit {
        rows.push(Row {
            measure: "audit",
            value: format!(
                "{}{}; {} requirements with findings ({} vacuous, {} implied by the domain, {} redundant, {} conflicts the environment can force); {} undecided",
                a.consistency,
                if a.conflicts.is_empty() {
                    String::new()
                } else {
                    format!(" ({} minimal conflicts)", a.conflicts.len())
                },
                a.with_findings.len(),
                a.vacuous,
                a.implied_by_domain,
                a.redundant,
                a.conflicts_for_some_inputs,
                a.unknown
            ),
        });
    }
    if let Some(a) = &r.ambiguity {
        rows.push(Row {
            measure: "ambiguity flags",
            value: format!(
                "{} of {} ({} samples each); {} could not be screened",
                a.flagged.len(),
                a.requirements,
                a.samples,
                a.could_not_screen.len()
            ),
        });
    }
    rows
}

fn human(r: &RunReport, rows: &[Row], seconds: f64) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "vera run: {} → {}", r.document, r.dir);
    for s in &r.stages {
        let _ = writeln!(
            o,
            "  {:<10} {:<7} {:>8.1} s  {}",
            s.name,
            if s.reused { "reused" } else { "ran" },
            s.seconds,
            s.files.join(", ")
        );
    }
    o.push('\n');
    let width = rows.iter().map(|x| x.measure.len()).max().unwrap_or(0);
    for row in rows {
        let _ = writeln!(o, "{:<width$}  {}", row.measure, row.value);
    }
    if let Some(s) = &r.schema {
        for f in &s.findings {
            let _ = writeln!(o, "  {}: {}", paint(Paint::Bad, "schema"), excerpt(f, 140));
        }
    }
    if let Some(f) = &r.formalize {
        for x in &f.failed {
            let why = if x.missing.is_empty() {
                excerpt(&x.reason, 120)
            } else {
                format!(
                    "needs {} (not in the schema)",
                    x.missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let _ = writeln!(
                o,
                "  {} {}: {why}",
                paint(Paint::Bad, "not formalized"),
                paint(Paint::Id, &x.id)
            );
        }
    }
    if let Some(a) = &r.audit {
        for c in &a.conflicts {
            let _ = writeln!(o, "  {}: {}", paint(Paint::Bad, "conflict"), c.join(", "));
        }
        if !a.with_findings.is_empty() {
            let _ = writeln!(
                o,
                "  {}: {}",
                paint(Paint::Bad, "audit findings"),
                a.with_findings.join(", ")
            );
        }
    }
    if let Some(a) = &r.ambiguity {
        if !a.flagged.is_empty() {
            let _ = writeln!(
                o,
                "  {}: {}",
                paint(Paint::Warn, "ambiguity-sensitive"),
                a.flagged.join(", ")
            );
        }
        if !a.could_not_screen.is_empty() {
            let _ = writeln!(
                o,
                "  {}: {}",
                paint(Paint::Warn, "not screened"),
                a.could_not_screen.join(", ")
            );
        }
    }
    if let Some(t) = &r.roundtrip {
        if !t.differs.is_empty() {
            let _ = writeln!(
                o,
                "  {}: {}",
                paint(Paint::Bad, "round trip differs"),
                t.differs.join(", ")
            );
        }
        if !t.no_formula.is_empty() {
            let _ = writeln!(
                o,
                "  {}: {}",
                paint(Paint::Warn, "round trip without a formula"),
                t.no_formula.join(", ")
            );
        }
    }
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    if r.formalize.is_some() {
        let _ = writeln!(
            o,
            "\nthe details are in {}: schema.toml (review it), formalized.toml (vera audit, vera ask), *.json ({seconds:.1} s)",
            r.dir
        );
    } else {
        let _ = writeln!(o, "\n({seconds:.1} s)");
    }
    o
}

fn page(r: &RunReport, rows: &[Row], seconds: f64) -> report::html::Page {
    use report::html::{Block, Count, Page, Section, Tone};
    let f = r.formalize.clone().unwrap_or_default();
    let mut counts = vec![
        Count::neutral("requirements", r.extract.selected),
        Count::neutral("formalized", f.first_attempt + f.after_repair),
        Count::findings("not formalized", f.failed.len(), Tone::Bad),
    ];
    if let Some(a) = &r.audit {
        counts.push(Count::findings(
            "audit findings",
            a.with_findings.len(),
            Tone::Bad,
        ));
    }
    if let Some(a) = &r.ambiguity {
        counts.push(Count::findings(
            "ambiguity-sensitive",
            a.flagged.len(),
            Tone::Warn,
        ));
    }
    let mut failed = Vec::new();
    for x in &f.failed {
        failed.push(Block::Item {
            title: x.id.clone(),
            badge: if x.missing.is_empty() {
                "not formalized".into()
            } else {
                "missing variable".into()
            },
            tone: Tone::Bad,
            blocks: vec![Block::Text(x.reason.clone())],
        });
    }
    let stages = Block::Table {
        headers: vec!["stage".into(), "".into(), "seconds".into(), "files".into()],
        rows: r
            .stages
            .iter()
            .map(|s| {
                vec![
                    s.name.to_string(),
                    if s.reused { "reused" } else { "ran" }.into(),
                    format!("{:.1}", s.seconds),
                    s.files.join(", "),
                ]
            })
            .collect(),
    };
    let mut sections = vec![
        Section {
            heading: "Counts".into(),
            blocks: vec![Block::Table {
                headers: vec!["measure".into(), "value".into()],
                rows: rows
                    .iter()
                    .map(|x| vec![x.measure.to_string(), x.value.clone()])
                    .collect(),
            }],
        },
        Section {
            heading: "Stages".into(),
            blocks: vec![stages],
        },
    ];
    if !failed.is_empty() {
        sections.push(Section {
            heading: "Requirements not formalized".into(),
            blocks: failed,
        });
    }
    if !r.notes.is_empty() {
        sections.push(Section {
            heading: "Notes".into(),
            blocks: r.notes.iter().map(|n| Block::Text(n.clone())).collect(),
        });
    }
    Page {
        title: format!("vera run: {}", r.document),
        subtitle: Some(format!("{} ({seconds:.1} s)", r.dir)),
        counts,
        sections,
    }
}

/// The report of `vera run`: an undecided stage is an error, any finding a finding.
pub fn run_report(
    report: &RunReport,
    acc: llm::Accounting,
    seconds: f64,
) -> serde_json::Result<Rendered<serde_json::Value>> {
    let rows = table(report);
    let text = human(report, &rows, seconds);
    let status = Status::of(report.undecided(), report.has_findings());
    let page = page(report, &rows, seconds);
    let payload = serde_json::to_value(RunJson {
        schema: RUN_TAG,
        report,
        table: rows,
        llm: acc,
        seconds,
    })?;
    let mut r = Rendered::new(RUN_TAG, status, text, payload);
    r.page = Some(page);
    Ok(r)
}

/// The line `vera run` prints on standard error for a stage's event.
pub fn progress_line(e: &pipeline::run::Event) -> String {
    use pipeline::run::Event;
    match e {
        Event::Stage {
            index,
            total,
            name,
            reused,
            detail,
        } => format!(
            "[{index}/{total}] {name}: {}",
            if *reused {
                "up to date, reused"
            } else {
                detail
            }
        ),
        Event::Done { name, line } => format!("      {name}: {line}"),
    }
}

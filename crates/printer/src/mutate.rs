//! The report of `vera mutate`: detection rates per mutation category, the mutants the
//! spec cannot tell apart, and the mutation page.

use crate::text::clean;
use crate::Rendered;
use report::Status;
use reqs::mutate::Detection;
use reqs::Spec;
use serde::Serialize;
use std::fmt::Write as _;

/// The report of `vera mutate` on `spec`, `report` found in `seconds`: an undecided
/// mutant makes it an error, an undetected one a finding.
pub fn mutate_report(
    spec: &Spec,
    report: reqs::mutate::MutationReport,
    seconds: f64,
) -> Rendered<MutateJson> {
    let unknown = report
        .mutants
        .iter()
        .any(|m| matches!(m.detection, Detection::Unknown { .. }));
    let undetected: Vec<&reqs::mutate::MutantResult> = report
        .mutants
        .iter()
        .filter(|m| m.detection == Detection::Equivalent)
        .collect();
    let status = Status::of(unknown, !undetected.is_empty());
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}): {} mutants of {} requirements in {seconds:.2} s",
        clean(&spec.name),
        clean(spec.source.name()),
        report.mutants.len(),
        spec.formalized().count()
    );
    let _ = writeln!(
        o,
        "\n{:<34} {:>7} {:>8} {:>7}  Wilson 95%",
        "category", "mutants", "detected", "rate"
    );
    for r in &report.rates {
        let _ = writeln!(
            o,
            "{:<34} {:>7} {:>8} {:>6.1}%  [{:.1}%, {:.1}%]",
            r.category,
            r.mutants,
            r.detected,
            100.0 * r.rate,
            100.0 * r.interval.0,
            100.0 * r.interval.1
        );
    }
    if !undetected.is_empty() {
        let _ = writeln!(
            o,
            "\nundetected (equivalent under the domain: the spec cannot tell them apart):"
        );
        for m in &undetected {
            let _ = writeln!(
                o,
                "  {}: {} — {}",
                m.mutant.requirement,
                m.mutant.category.name(),
                m.mutant.description
            );
        }
    }
    for m in report
        .mutants
        .iter()
        .filter(|m| matches!(m.detection, Detection::Unknown { .. }))
    {
        if let Detection::Unknown { reason } = &m.detection {
            let _ = writeln!(
                o,
                "  {}: unknown ({reason}) — {}",
                m.mutant.requirement, m.mutant.description
            );
        }
    }
    let page = mutation_page(spec, &report, seconds);
    let mut r = Rendered::new(
        "vera.mutate.v1",
        status,
        o,
        MutateJson {
            schema: "vera.mutate.v1",
            spec: spec.name.clone(),
            seconds,
            rates: report.rates,
            mutants: report.mutants,
        },
    );
    r.page = Some(page);
    r
}

/// `vera.mutate.v1`.
#[derive(Serialize)]
pub struct MutateJson {
    schema: &'static str,
    spec: String,
    seconds: f64,
    rates: Vec<reqs::mutate::Rate>,
    mutants: Vec<reqs::mutate::MutantResult>,
}

/// The mutation page: detection per category as bars, undetected mutants listed.
fn mutation_page(
    spec: &Spec,
    report: &reqs::mutate::MutationReport,
    seconds: f64,
) -> report::html::Page {
    use report::html::{Bar, Block, Count, Page, Section, Tone};
    use reqs::mutate::Detection;
    let count =
        |f: &dyn Fn(&Detection) -> bool| report.mutants.iter().filter(|m| f(&m.detection)).count();
    let undetected = count(&|d| *d == Detection::Equivalent);
    let unknown = count(&|d| matches!(d, Detection::Unknown { .. }));
    let bars = report
        .rates
        .iter()
        .map(|r| Bar {
            label: format!(
                "{} ({} of {}, 95% {:.0}–{:.0}%)",
                r.category,
                r.detected,
                r.mutants,
                100.0 * r.interval.0,
                100.0 * r.interval.1
            ),
            value: r.detected as f64,
            max: r.mutants.max(1) as f64,
            tone: if r.detected == r.mutants {
                Tone::Good
            } else {
                Tone::Warn
            },
        })
        .collect();
    let rows: Vec<Vec<String>> = report
        .mutants
        .iter()
        .filter(|m| {
            matches!(
                m.detection,
                Detection::Equivalent | Detection::Unknown { .. }
            )
        })
        .map(|m| {
            vec![
                m.mutant.requirement.clone(),
                m.mutant.category.name().to_string(),
                m.mutant.description.clone(),
                match &m.detection {
                    Detection::Unknown { reason } => format!("unknown: {reason}"),
                    _ => "equivalent under the domain".into(),
                },
            ]
        })
        .collect();
    Page {
        title: format!("vera mutate: {}", spec.name),
        subtitle: Some(format!("{} · {seconds:.2} s", spec.source.name())),
        counts: vec![
            Count::neutral("mutants", report.mutants.len()),
            Count::findings("undetected", undetected, Tone::Warn),
            Count::findings("undecided", unknown, Tone::Bad),
        ],
        sections: vec![
            Section {
                heading: "Detection by category".into(),
                blocks: vec![Block::Bars {
                    caption: "Mutants the spec tells apart from the original".into(),
                    bars,
                }],
            },
            Section {
                heading: "Mutants not detected".into(),
                blocks: vec![if rows.is_empty() {
                    Block::Text("None: the spec tells every mutant from the original.".into())
                } else {
                    Block::Table {
                        headers: vec![
                            "requirement".into(),
                            "category".into(),
                            "mutant".into(),
                            "why".into(),
                        ],
                        rows,
                    }
                }],
            },
        ],
    }
}

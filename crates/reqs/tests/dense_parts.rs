//! The search by parts of the product (used by default from 600 automata) gives the
//! verdicts of the search of the whole product: a generated spec audited both ways,
//! with the search by parts forced on every question.

use reqs::timed::dense::audit::{audit_dense, DenseOptions, DenseReport};
use reqs::timed::dense::generate::{shaped_text, Shape};
use solver::{SolverConfig, SolverKind};

/// The name of a verdict's variant (`NotVacuous`, `Reachable`, ...), without its run.
fn kind(v: &impl std::fmt::Debug) -> String {
    let text = format!("{v:?}");
    let end = text.find([' ', '{', '(']).unwrap_or(text.len());
    text[..end].to_string()
}

/// Every verdict of the report, by requirement and by rt set, with how it was settled
/// (proved, or checked up to a number of intervals) where the verdict says.
fn verdicts(r: &DenseReport) -> Vec<String> {
    let mut out = vec![format!("consistency {}", kind(&r.consistency))];
    for a in &r.requirements {
        out.push(format!(
            "{} vacuity {} redundancy {}",
            a.id,
            kind(&a.vacuity),
            kind(&a.redundancy)
        ));
    }
    for c in &r.rt_checks {
        out.push(format!("rt {:?} {}", c.automata, kind(&c.dead_end)));
    }
    out.push(format!("environment {}", kind(&r.environment)));
    out
}

fn audit(text: &str, parts_from: usize) -> DenseReport {
    let spec = reqs::parse_spec(logic::SourceFile::new("g.toml", text.to_string()))
        .unwrap_or_else(|d| panic!("loads:\n{d}"));
    let mut options = DenseOptions::new(SolverConfig::new(SolverKind::Z3));
    options.parts_from = parts_from;
    audit_dense(&spec, &options).expect("audits")
}

#[test]
fn searching_by_parts_gives_the_verdicts_of_the_whole_product() {
    let text = shaped_text(40, 1, 1, Shape::Components);
    let whole = audit(&text, usize::MAX);
    let parts = audit(&text, 0);
    let (w, p) = (verdicts(&whole), verdicts(&parts));
    assert_eq!(w, p);
    // The spec has something to find, so the comparison is not of empty reports.
    assert!(whole
        .rt_checks
        .iter()
        .any(|c| kind(&c.dead_end) == "Reachable"));
    assert!(whole.requirements.len() >= 40);
}

//! The industrial-style example specs of Ultimate's repository
//! (`trunk/examples/Requirements/*.req`, copied with their license into
//! crates/extract/tests/data/ultimate-req/examples): every one that imports is audited
//! in dense time with the default limits, and every check is decided (shown by a run or
//! proved for every run; no `unknown`, no check left bounded).
//!
//! `cargo test -p reqs --test dense_examples` audits all but the two largest;
//! `cargo test -p reqs --test dense_examples -- --ignored` audits those two (Lambda.req,
//! 48 requirements, and deploy.req, 84: about 15 s each in a release build).

use reqs::timed::dense::audit::{
    audit_dense, DenseConsistency, DenseOptions, DenseRedundancy, DenseVacuity, Reach,
};
use solver::{SolverConfig, SolverKind};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data/ultimate-req/examples")
}

const LARGE: &[&str] = &["Lambda.req", "deploy.req"];

/// Audits one file; the problems found (undecided checks), or why it was not audited.
fn audit(name: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    let imported =
        extract::req_to_spec(name, &text, None).map_err(|_| "not imported".to_string())?;
    let spec = reqs::parse_spec(logic::SourceFile::new(name, imported.toml))
        .unwrap_or_else(|d| panic!("{name}: the imported spec does not load:\n{d}"));
    let start = std::time::Instant::now();
    let r = audit_dense(&spec, &DenseOptions::new(SolverConfig::new(SolverKind::Z3)))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let redundant = (r.requirements.iter())
        .filter(|a| matches!(a.redundancy, DenseRedundancy::Redundant { .. }))
        .count();
    eprintln!(
        "{name}: {} requirements, {} checks, {redundant} redundant, {:.1} s",
        spec.requirements.len(),
        r.results,
        start.elapsed().as_secs_f64()
    );
    let mut problems = Vec::new();
    if let DenseConsistency::Unknown { reason } = &r.consistency {
        problems.push(format!("{name}: consistency: {reason}"));
    }
    for a in &r.requirements {
        if matches!(
            a.vacuity,
            DenseVacuity::Unknown { .. } | DenseVacuity::Vacuous { proved: false, .. }
        ) {
            problems.push(format!("{name}: vacuity of {}: {:?}", a.id, a.vacuity));
        }
        let consistent = matches!(r.consistency, DenseConsistency::Consistent { .. });
        let not_checked = matches!(a.redundancy, DenseRedundancy::NotChecked { .. });
        if (consistent && not_checked)
            || matches!(
                a.redundancy,
                DenseRedundancy::Unknown { .. } | DenseRedundancy::Redundant { proved: false, .. }
            )
        {
            problems.push(format!(
                "{name}: redundancy of {}: {:?}",
                a.id, a.redundancy
            ));
        }
    }
    for c in &r.rt_checks {
        if matches!(
            c.dead_end,
            Reach::Unknown { .. } | Reach::Unreachable { proved: false, .. }
        ) {
            problems.push(format!(
                "{name}: dead ends of {:?}: {:?}",
                c.automata, c.dead_end
            ));
        }
    }
    Ok(problems)
}

fn top_level() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "req"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn every_example_that_imports_is_decided() {
    let (mut audited, mut problems) = (0, Vec::new());
    for name in top_level().iter().filter(|n| !LARGE.contains(&n.as_str())) {
        if let Ok(p) = audit(name) {
            audited += 1;
            problems.extend(p);
        }
    }
    assert_eq!(audited, 46, "the examples that import, but the two largest");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
#[ignore = "the two largest examples: about 15 s each in a release build"]
fn the_largest_examples_are_decided() {
    let mut problems = Vec::new();
    for name in LARGE {
        problems.extend(audit(name).expect("imports"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

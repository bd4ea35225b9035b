//! Batch mode: folders that are not a case are reported with the reason and how to
//! name the files; one precedence between the batch's bounds and a folder's
//! `bounds.json`; totals; a reason on every rejected and unknown row; parallel runs
//! give the rows of a serial run; shards split the sorted case list and merge back.

mod common;
use bl::batch::*;
use bl::check::{Bounds, Verdict};
use solver::{SolverConfig, SolverKind};
use std::path::Path;

const NL: &str = "(declare-const x Real)\n(declare-const out Real)\n(assert (= out (* 1.0 x)))\n";
const NL_OFF: &str =
    "(declare-const x Real)\n(declare-const out Real)\n(assert (= out (+ x 1.0)))\n";
const PROG: &str = "let x = <input>\nlet fee = x\n";
const BOUNDS: &str = r#"[{"type": "outputs", "variables": ["out", "fee"]}]"#;

fn write(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// A dataset `set` with good cases and every kind of folder that is not a case.
fn dataset(root: &Path) {
    write(&root.join("good"), &[("nl.smt2", NL), ("prog.bl", PROG)]);
    write(&root.join("off"), &[("nl.smt2", NL_OFF), ("prog.bl", PROG)]);
    write(
        &root.join("own-bounds"),
        &[("nl.smt2", NL), ("prog.bl", PROG), ("bounds.json", BOUNDS)],
    );
    write(
        &root.join("two-programs"),
        &[("nl.smt2", NL), ("a.bl", PROG), ("b.bl", PROG)],
    );
    write(
        &root.join("two-docs"),
        &[("first.smt2", NL), ("second.smt2", NL), ("prog.bl", PROG)],
    );
    write(
        &root.join("two-named"),
        &[("nl.smt2", NL), ("two-named.smt2", NL), ("prog.bl", PROG)],
    );
    write(&root.join("no-doc"), &[("prog.bl", PROG)]);
    write(&root.join("no-program"), &[("nl.smt2", NL)]);
    write(&root.join("notes"), &[("README.txt", "not a case")]);
}

fn have_z3() -> bool {
    common::have("z3")
}

#[test]
fn folders_that_are_not_cases_are_rows_with_a_reason_and_a_hint() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    dataset(&root);
    let found = discover(&root).unwrap();
    let cases: Vec<&str> = found.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(cases, ["good", "off", "own-bounds"]);
    let rows: Vec<String> = found
        .unresolved
        .iter()
        .map(|u| format!("{}: {} | {}", u.name, u.reason, u.hint))
        .collect();
    insta::assert_snapshot!("unresolved_folders", rows.join("\n"));
    // A folder without case files (notes) is not a row.
    assert!(found.unresolved.iter().all(|u| u.name != "notes"));
}

#[test]
fn shards_split_the_sorted_rows_and_cover_them_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    dataset(&root);
    let all = discover(&root).unwrap();
    let mut names: Vec<String> = all
        .cases
        .iter()
        .map(|c| c.name.clone())
        .chain(all.unresolved.iter().map(|u| u.name.clone()))
        .collect();
    names.sort();
    for n in 1..=4 {
        let mut seen: Vec<String> = Vec::new();
        for k in 1..=n {
            let shard = Shard { index: k, count: n };
            let part = discover(&root).unwrap().shard(shard);
            // The same split every time.
            assert_eq!(part, discover(&root).unwrap().shard(shard));
            let mine: Vec<String> = part
                .cases
                .iter()
                .map(|c| c.name.clone())
                .chain(part.unresolved.iter().map(|u| u.name.clone()))
                .collect();
            // Position i goes to shard i mod N + 1.
            for m in &mine {
                let i = names.iter().position(|x| x == m).unwrap();
                assert_eq!(i % n, k - 1, "{m} in shard {shard}");
            }
            seen.extend(mine);
        }
        seen.sort();
        assert_eq!(seen, names, "{n} shards");
    }
    for bad in ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", ""] {
        let e = bad.parse::<Shard>().unwrap_err();
        assert!(e.to_string().contains("K/N"), "{bad}: {e}");
    }
    assert_eq!(
        "2/3".parse::<Shard>().unwrap(),
        Shard { index: 2, count: 3 }
    );
}

fn options(bounds: Option<&str>, jobs: usize) -> BatchOptions {
    BatchOptions {
        bounds: bounds.map(|b| Bounds::from_json("batch-bounds.json", b).unwrap()),
        jobs,
        ..BatchOptions::default()
    }
}

#[test]
fn the_batch_bounds_take_precedence_over_a_folders_bounds_json() {
    if !have_z3() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    dataset(&root);
    // The folder's bounds.json names an output its sides lack: used, it fails.
    std::fs::write(
        root.join("own-bounds/bounds.json"),
        r#"[{"type": "outputs", "variables": ["out", "final_tax"]}]"#,
    )
    .unwrap();
    let cases = discover(&root).unwrap().cases;
    let config = SolverConfig::new(SolverKind::Z3);
    let with = run(&cases, &options(Some(BOUNDS), 1), &config);
    let own = with.iter().find(|r| r.case.name == "own-bounds").unwrap();
    assert_eq!(own.bounds_source, BoundsSource::Option);
    assert!(own.folder_bounds_ignored);
    assert_eq!(own.bounds_used.as_deref(), Some("batch-bounds.json"));
    assert_eq!(own.verdict, Some(Verdict::Consistent), "{own:?}");
    let good = with.iter().find(|r| r.case.name == "good").unwrap();
    assert_eq!(good.bounds_source, BoundsSource::Option);
    assert!(!good.folder_bounds_ignored);
    let without = run(&cases, &options(None, 1), &config);
    let own = without
        .iter()
        .find(|r| r.case.name == "own-bounds")
        .unwrap();
    assert_eq!(own.bounds_source, BoundsSource::Folder);
    assert!(!own.folder_bounds_ignored);
    assert!(
        own.error.as_deref().unwrap_or("").contains("final_tax"),
        "{own:?}"
    );
    let good = without.iter().find(|r| r.case.name == "good").unwrap();
    assert_eq!(good.bounds_source, BoundsSource::None);
}

/// Totals, the unresolved folders counted, a reason on the rejected row, and the
/// same rows with 1 and 3 parallel jobs.
#[test]
fn totals_reasons_and_parallel_rows() {
    if !have_z3() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    dataset(&root);
    // A rejected case: the formalization has no output for some inputs.
    write(
        &root.join("partial"),
        &[
            (
                "nl.smt2",
                "(declare-const x Real)\n(declare-const out Real)\n(assert (= out x))\n(assert (> x 5.0))\n",
            ),
            ("prog.bl", PROG),
        ],
    );
    let found = discover(&root).unwrap();
    let config = SolverConfig::new(SolverKind::Z3);
    let serial = run(&found.cases, &options(Some(BOUNDS), 1), &config);
    let parallel = run(&found.cases, &options(Some(BOUNDS), 3), &config);
    let rows = |rs: &[CaseResult]| -> Vec<(String, Option<Verdict>)> {
        rs.iter()
            .map(|r| (r.case.name.clone(), r.verdict))
            .collect()
    };
    assert_eq!(rows(&serial), rows(&parallel));
    for r in &serial {
        if matches!(r.verdict, Some(Verdict::Rejected | Verdict::Unknown)) {
            assert!(
                r.reason.as_deref().is_some_and(|x| !x.is_empty()),
                "{} has no reason",
                r.case.name
            );
        }
    }
    assert!(
        serial.iter().any(|r| r.verdict == Some(Verdict::Rejected)),
        "{:?}",
        rows(&serial)
    );
    let report = BatchReport::new(
        root.display().to_string(),
        0.0,
        None,
        found.rows(),
        serial,
        found.unresolved,
        found.skipped,
    );
    let t = &report.totals;
    assert_eq!(t.dataset, "total");
    assert_eq!(t.cases, 4);
    assert_eq!(
        t.consistent + t.inconsistent + t.unknown + t.rejected + t.errors,
        4
    );
    assert_eq!(t.not_checked, 5);
    assert_eq!(report.summary.len(), 1);
    assert_eq!(report.summary[0].not_checked, 5);
}

fn shard_report(root: &Path, shard: Option<Shard>) -> BatchReport {
    let all = discover(root).unwrap();
    let total = all.rows();
    let part = match shard {
        Some(s) => all.shard(s),
        None => all,
    };
    let results = run(
        &part.cases,
        &options(Some(BOUNDS), 1),
        &SolverConfig::new(SolverKind::Z3),
    );
    BatchReport::new(
        root.display().to_string(),
        1.0,
        shard,
        total,
        results,
        part.unresolved,
        part.skipped,
    )
}

#[test]
fn merged_shards_equal_the_whole_batch() {
    if !have_z3() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    dataset(&root);
    let whole = shard_report(&root, None);
    let parts: Vec<(String, BatchReport)> = (1..=3)
        .map(|k| {
            let r = shard_report(&root, Some(Shard { index: k, count: 3 }));
            // Through JSON, as a job runner would hand them over.
            let json = serde_json::to_string(&r).unwrap();
            (
                format!("shard-{k}.json"),
                serde_json::from_str(&json).unwrap(),
            )
        })
        .collect();
    let merged = merge(parts.clone()).unwrap();
    assert_eq!(merged.summary, whole.summary);
    assert_eq!(merged.totals, whole.totals);
    let names =
        |r: &BatchReport| -> Vec<String> { r.cases.iter().map(|c| c.case.name.clone()).collect() };
    assert_eq!(names(&merged), names(&whole));
    assert_eq!(merged.unresolved, whole.unresolved);
    assert_eq!(merged.total_rows, whole.total_rows);
    assert_eq!(merged.merged_from.len(), 3);
    assert_eq!(merged.seconds, 3.0);
    // A missing shard, a shard twice, a whole report beside shards: errors.
    let e = merge(parts[..2].to_vec()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shard 3 of 3 missing: merge every shard of the split"
    );
    let twice = vec![
        parts[0].clone(),
        parts[0].clone(),
        parts[1].clone(),
        parts[2].clone(),
    ];
    assert!(merge(twice).unwrap_err().to_string().contains("is also"));
    let mut mixed = parts.clone();
    mixed.push(("whole.json".into(), whole.clone()));
    assert!(matches!(
        merge(mixed).unwrap_err(),
        MergeError::Shards { .. }
    ));
    // Two whole reports of the same cases: a case in two reports.
    let e = merge(vec![
        ("a.json".into(), whole.clone()),
        ("b.json".into(), whole),
    ])
    .unwrap_err();
    assert!(e.to_string().contains("is in a.json and in b.json"), "{e}");
    assert_eq!(merge(vec![]).unwrap_err(), MergeError::Empty);
}

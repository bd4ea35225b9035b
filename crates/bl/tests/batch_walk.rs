//! Case discovery over folders with symbolic links: a link to a folder is not followed
//! (it could lead back up, or sideways into another dataset), and is reported.

#![cfg(unix)]

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

const NL: &str = "(declare-const x Real)\n(declare-const out Real)\n(assert (= out (* 1.0 x)))\n";

fn case(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("nl.smt2"), NL).unwrap();
    std::fs::write(dir.join("prog.bl"), "let x = <input>\nlet fee = x\n").unwrap();
}

/// Runs discovery on another thread so that a walk that does not end fails the test
/// instead of hanging it.
fn discover(root: &Path) -> bl::batch::Discovery {
    let (tx, rx) = mpsc::channel();
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(bl::batch::discover(&root).map_err(|e| e.to_string()));
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("discovery did not finish in 20 s")
        .expect("discovery succeeds")
}

#[test]
fn batch_discovery_does_not_follow_symlink_cycles() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    case(&root.join("a"));
    case(&root.join("b/c"));
    // DIR/a/loop -> .. (back to the root), DIR/b/c/up -> ../.. (a second cycle: with
    // both followed, the number of paths doubles at every level).
    std::os::unix::fs::symlink("..", root.join("a/loop")).unwrap();
    std::os::unix::fs::symlink("../..", root.join("b/c/up")).unwrap();
    // A link to a folder outside the cycle is not followed either.
    std::os::unix::fs::symlink(root.join("b/c"), root.join("alias")).unwrap();
    // A linked file is read like any other.
    std::fs::write(tmp.path().join("shared-bounds.json"), "[]").unwrap();
    std::os::unix::fs::symlink(
        tmp.path().join("shared-bounds.json"),
        root.join("a/bounds.json"),
    )
    .unwrap();
    let found = discover(&root);
    let names: Vec<&str> = found.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b/c"], "{:?}", found.skipped);
    assert!(
        found.cases[0].bounds.is_some(),
        "the linked bounds.json is used"
    );
    let mut skipped: Vec<String> = found
        .skipped
        .iter()
        .map(|s| s.path.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    skipped.sort();
    assert_eq!(skipped, ["a/loop", "alias", "b/c/up"]);
    assert!(
        found.skipped[0].reason.contains("link"),
        "{:?}",
        found.skipped
    );
}

/// The walk is bounded in depth: a folder chain deeper than the limit is cut and the
/// cut is reported.
#[test]
fn batch_discovery_is_bounded_in_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("deep");
    let mut d = root.clone();
    for _ in 0..(bl::batch::MAX_DEPTH + 5) {
        d = d.join("d");
    }
    std::fs::create_dir_all(&d).unwrap();
    case(&root.join("ok"));
    let found = discover(&root);
    assert_eq!(found.cases.len(), 1);
    assert!(
        found.skipped.iter().any(|s| s.reason.contains("deeper")),
        "{:?}",
        found.skipped
    );
}

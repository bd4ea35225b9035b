//! No verdict without an answer: an `unknown` anywhere on the path to a verdict, an
//! empty input, or a result that means nothing is reported as such (exit 2), never as a
//! pass or a complete result. The faults are injected by `fixtures/z3-proxy.py`, which
//! passes everything else through to the real z3.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs vera from the repository root with extra environment; returns (code, out, err).
fn vera_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vera"));
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("vera runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn vera(args: &[&str]) -> (i32, String, String) {
    vera_env(args, &[])
}

fn proxy() -> String {
    root()
        .join("crates/vera/tests/fixtures/z3-proxy.py")
        .display()
        .to_string()
}

const INCONSISTENT: &str = "examples/hemodialysis/hemodialysis-inconsistent.toml";
const SPEC: &str = "examples/hemodialysis/hemodialysis.toml";

#[test]
fn all_conflicts_interrupted_by_unknown_is_incomplete_and_counted() {
    let proxy = proxy();
    // The subset (map) solver of the enumeration declares m0; from then on its checks
    // answer unknown.
    let env = [
        ("VERA_Z3", proxy.as_str()),
        ("FAKE_ARM", "(declare-const m0 Bool)"),
    ];
    let (code, out, err) = vera_env(
        &[
            "audit",
            INCONSISTENT,
            "--all-conflicts",
            "10",
            "--format",
            "json",
        ],
        &env,
    );
    assert_eq!(code, 2, "an unknown answer is exit 2\n{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &j["consistency"];
    assert_eq!(c["status"], "inconsistent");
    assert_eq!(c["complete"], false, "{c}");
    assert_eq!(c["incomplete"]["why"], "unknown", "{c}");
    assert!(
        j["summary"]["unknown"].as_u64().unwrap() >= 1,
        "{}",
        j["summary"]
    );

    let (code, out, _) = vera_env(&["audit", INCONSISTENT, "--all-conflicts", "10"], &env);
    assert_eq!(code, 2);
    assert!(!out.contains("all of them"), "{out}");
    assert!(out.contains("incomplete"), "{out}");
}

#[test]
fn all_conflicts_that_finish_say_so() {
    let (code, out, err) = vera(&["audit", INCONSISTENT, "--all-conflicts", "10"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("(all of them)"), "{out}");
}

#[test]
fn unknown_consistency_is_not_reported_as_inconsistent() {
    let proxy = proxy();
    // Every check that assumes a requirement (the consistency check and the checks
    // under M) answers unknown; the domain-only checks are answered by z3.
    let env = [("VERA_Z3", proxy.as_str()), ("FAKE_MATCH", "vera!r")];
    let (code, out, err) = vera_env(&["audit", SPEC, "--format", "json"], &env);
    assert_eq!(code, 2, "{out}\n{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["consistency"]["status"], "unknown");
    for r in j["requirements"].as_array().unwrap() {
        for check in ["vacuity_model", "redundancy"] {
            let st = &r[check]["status"];
            assert!(
                st == "unknown" || st == "not-applicable",
                "{}: {check} {}",
                r["id"],
                r[check]
            );
        }
    }
    assert!(j["summary"]["unknown"].as_u64().unwrap() > 0);
    let (_, out, _) = vera_env(&["audit", SPEC], &env);
    assert!(!out.contains("inconsistent"), "{out}");
}

#[test]
fn mutation_analysis_of_an_inconsistent_spec_is_refused() {
    let (code, out, err) = vera(&["mutate", INCONSISTENT]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("not meaningful"), "{err}");
    assert!(err.contains("inconsistent"), "{err}");
    assert!(!out.contains("100.0%"), "{out}");
}

#[test]
fn derive_with_undecided_facts_exits_2() {
    let proxy = proxy();
    // The first check after the spec is loaded (is the scenario possible?) is answered;
    // every later one (the facts) is unknown.
    let env = [
        ("VERA_Z3", proxy.as_str()),
        ("FAKE_ARM", "(declare-const blood_flow"),
        ("FAKE_AFTER", "1"),
    ];
    let (code, out, err) = vera_env(
        &["ask", SPEC, "--scenario", "(= phase Therapy)", "--derive"],
        &env,
    );
    assert!(out.contains("unknown"), "{out}\n{err}");
    assert_eq!(code, 2, "{out}\n{err}");
    // Without faults the same derivation is a result.
    let (code, _, err) = vera(&["ask", SPEC, "--scenario", "(= phase Therapy)", "--derive"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn empty_spec_and_header_only_csv_have_nothing_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let header = dir.path().join("header.csv");
    std::fs::write(&header, "id,text,formula\n").unwrap();
    let (e, h) = (empty.display().to_string(), header.display().to_string());
    for args in [
        vec!["audit", e.as_str()],
        vec!["ask", e.as_str(), "--claim", "true"],
        vec!["mutate", e.as_str()],
        vec!["audit", h.as_str(), "--schema", SPEC],
    ] {
        let (code, out, err) = vera(&args);
        assert_eq!(code, 2, "{args:?}\n{out}\n{err}");
        assert!(
            err.contains("nothing to check") || err.contains("no formalized requirement"),
            "{args:?}: {err}"
        );
    }
}

//! End-to-end tests of the `vera` binary with real solvers.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs vera from the repository root; returns (exit code, stdout, stderr).
fn vera(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("vera runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn unsat_example_reports_its_core_with_both_solvers() {
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "smt",
            "check",
            "--solver",
            solver,
            "examples/smt/pump-limits.smt2",
        ]);
        assert_eq!(code, 1, "{solver}: unsat exits 1\n{out}\n{err}");
        insta::assert_snapshot!(format!("pump_limits_{solver}"), out);
    }
}

#[test]
fn sat_example_prints_model_and_values() {
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "smt",
            "check",
            "--solver",
            solver,
            "--format",
            "json",
            "examples/smt/pump-ok.smt2",
        ]);
        assert_eq!(code, 0, "{solver}: sat exits 0\n{out}\n{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["schema"], "vera.smt-check.v1");
        let check = &v["files"][0]["checks"][0];
        assert_eq!(check["answer"], "sat");
        let model = check["model"].as_array().unwrap();
        let names: Vec<&str> = model.iter().map(|p| p[0].as_str().unwrap()).collect();
        assert_eq!(names, ["rate", "hourly_limit", "bolus"]);
        assert_eq!(check["values"][0][0], "(- hourly_limit rate)");
    }
}

#[test]
fn bad_input_gives_located_errors_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.smt2");
    std::fs::write(
        &f,
        "(declare-const x Int)\n(assert (> y 1))\n(assert (+ x true))\n",
    )
    .unwrap();
    let (code, out, err) = vera(&["smt", "check", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("bad.smt2:2:12: error: undeclared symbol `y`"),
        "{err}"
    );
    assert!(err.contains("bad.smt2:3:14: error: sort mismatch"), "{err}");
}

#[test]
fn missing_file_is_an_error() {
    let (code, _, err) = vera(&["smt", "check", "no/such/file.smt2"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read no/such/file.smt2"), "{err}");
}

#[test]
fn fmt_prints_and_does_not_touch_the_file() {
    let before = std::fs::read_to_string(root().join("examples/smt/pump-limits.smt2")).unwrap();
    let (code, out, _) = vera(&["smt", "fmt", "examples/smt/pump-limits.smt2"]);
    assert_eq!(code, 0);
    assert!(out.contains("(assert (=> bolus (>= rate 150.0)))"), "{out}");
    assert!(
        out.contains("; R3: during a bolus"),
        "comments are kept:\n{out}"
    );
    let after = std::fs::read_to_string(root().join("examples/smt/pump-limits.smt2")).unwrap();
    assert_eq!(before, after);
}

#[test]
fn many_files_in_parallel_with_summary() {
    let (code, out, err) = vera(&[
        "smt",
        "check",
        "-j",
        "2",
        "examples/smt/pump-limits.smt2",
        "examples/smt/pump-ok.smt2",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("2 files: 1 sat, 1 unsat, 0 unknown, 0 errors, 0 disagree with :status"),
        "{out}"
    );
}

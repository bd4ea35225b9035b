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

/// Drops the closing line with the query count (it depends on the solver's cores).
fn without_query_count(out: &str) -> String {
    out.lines()
        .filter(|l| !l.contains("solver queries)"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn audit_report_on_the_example_is_the_same_with_both_solvers() {
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "audit",
            "--solver",
            solver,
            "examples/hemodialysis/hemodialysis.toml",
        ]);
        assert_eq!(code, 1, "{solver}: findings exit 1\n{out}\n{err}");
        insta::assert_snapshot!("audit_hemodialysis", without_query_count(&out));
        assert!(
            err.contains("warning: requirement `R-UI-1` is not formalized"),
            "{err}"
        );
    }
}

#[test]
fn audit_of_the_inconsistent_variant_lists_all_conflicts() {
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "audit",
            "--solver",
            solver,
            "--all-conflicts",
            "5",
            "examples/hemodialysis/hemodialysis-inconsistent.toml",
        ]);
        assert_eq!(code, 1, "{out}{err}");
        insta::assert_snapshot!("audit_hemodialysis_inconsistent", without_query_count(&out));
    }
}

/// The JSON report with solver-dependent parts (witness values, timing, query count)
/// replaced, so the golden file holds the verdicts and evidence structure.
fn normalized_json(out: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(out).unwrap();
    v["seconds"] = "<seconds>".into();
    v["queries"] = "<queries>".into();
    fn scrub(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::Array(w)) = m.get_mut("witness") {
                    for a in w {
                        a["value"] = "<value>".into();
                    }
                }
                m.values_mut().for_each(scrub);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    scrub(&mut v);
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn audit_json_report() {
    let (code, out, _) = vera(&[
        "audit",
        "--format",
        "json",
        "examples/hemodialysis/hemodialysis.toml",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "vera.audit.v1");
    assert_eq!(v["summary"]["redundant"], 2);
    insta::assert_snapshot!("audit_hemodialysis_json", normalized_json(&out));
}

#[test]
fn ask_answers_the_example_questions() {
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "ask",
            "--solver",
            solver,
            "examples/hemodialysis/hemodialysis.toml",
            "--questions",
            "examples/hemodialysis/questions.toml",
            "--format",
            "json",
        ]);
        // Q6 is not entailed and Q7 impossible: findings, but every answer as expected.
        assert_eq!(code, 1, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let answers = v["answers"].as_array().unwrap();
        assert_eq!(answers.len(), 12);
        for a in answers {
            assert_eq!(a["matches_expected"], true, "{solver}: {a}");
        }
        let q7 = answers.iter().find(|a| a["id"] == "Q7").unwrap();
        assert_eq!(
            q7["because"],
            serde_json::json!(["R-AIR-1", "R-AIR-2", "R-PRIME-1"])
        );
    }
}

#[test]
fn consistency_batch_over_the_cra_data() {
    let (code, out, err) = vera(&[
        "consistency",
        "--batch",
        "../shared/data/fees-dataset/cra-25",
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--assume",
        "sin_exception=(< sin 900000000)",
    ]);
    // federal ships a bounds.json naming an output its program lacks: an error.
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("cra-25          14         13            0        0        0      1"),
        "{out}"
    );
    assert!(out.contains("unknown output `final_tax`"), "{out}");
}

/// `vera c SUBCOMMAND FILE ...` on a file of crates/acsl/tests/c/soundness with a
/// fresh cache directory (real Frama-C/WP).
fn vera_c(sub: &str, file: &str, extra: &[&str], cache: &Path) -> (i32, String, String) {
    let path = format!("crates/acsl/tests/c/soundness/{file}");
    let cache = cache.display().to_string();
    let mut args = vec!["c", sub, path.as_str(), "--cache-dir", cache.as_str()];
    args.extend_from_slice(extra);
    vera(&args)
}

#[test]
fn c_verify_does_not_prove_a_caller_through_a_callee_without_contract() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = vera_c("verify", "callee_no_contract.c", &[], dir.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("not proved"), "{out}");
    assert!(
        out.contains("callees included with their bodies") && out.contains(": set"),
        "{out}"
    );
    let (code, out, err) = vera_c(
        "verify",
        "callee_no_contract.c",
        &["--format", "json"],
        dir.path(),
    );
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["report"]["verdict"]["verdict"], "not_proved");
    let f = v["report"]["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["functions"] == serde_json::json!(["f"]))
        .unwrap();
    assert_eq!(f["with_body"], serde_json::json!(["set"]));
    assert_eq!(f["assumed"], serde_json::json!([]));

    let (code, out, err) = vera(&[
        "c",
        "segments",
        "crates/acsl/tests/c/soundness/callee_kinds.c",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("callees included with their bodies (no contract or no assigns clause; a call may assign anything): set_spec"),
        "{out}"
    );
    assert!(
        out.contains("callees used through their contracts: reset"),
        "{out}"
    );
}

#[test]
fn c_verify_runs_smoke_tests_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = vera_c("verify", "vacuous.c", &[], dir.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("vacuous: smoke tests failed"), "{out}");
    assert!(!out.contains(": proved"), "{out}");
    let (code, out, err) = vera_c("verify", "vacuous.c", &["--no-smoke-tests"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": proved"), "{out}");
}

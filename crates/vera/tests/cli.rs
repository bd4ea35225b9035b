//! End-to-end tests of the `vera` binary with real solvers.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{root, vera};

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
        "testdata/fees-dataset/cra-25",
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--assume",
        "sin_exception=(< sin 900000000)",
    ]);
    // --bounds applies to every case: federal's own bounds.json (which names an
    // output its program lacks) is not used, and its row says so.
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "cra-25          14         14            0        0        0      0           0"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "total           14         14            0        0        0      0           0"
        ),
        "{out}"
    );
    let federal = out.lines().find(|l| l.starts_with("federal")).unwrap();
    assert!(
        federal.contains("[bounds: --bounds (its own bounds.json not used)]"),
        "{federal}"
    );
    let ab = out.lines().find(|l| l.starts_with("ab")).unwrap();
    assert!(ab.contains("[bounds: --bounds]"), "{ab}");
    // Without --bounds, the folder's bounds.json is used: the case cannot run.
    let (code, out, err) = vera(&[
        "consistency",
        "--batch",
        "testdata/fees-dataset/cra-25/federal",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("[bounds: its bounds.json]"), "{out}");
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

// ------------------------------------------------------------------ consistency (bl)
//
// `vera consistency` on hand-made cases in temporary folders, with both solvers.

/// Positive integers with a³ + b³ = c³: none exist, and no solver can show it, so a
/// query that needs this answers unknown at a short time limit, deterministically.
const BL_FERMAT_NL: &str = "(declare-const x Real)\n(declare-const a Int)\n(declare-const b Int)\n(declare-const c Int)\n(declare-const out Real)\n(assert (and (> a 0) (> b 0) (> c 0) (= (+ (* a a a) (* b b b)) (* c c c))))\n(assert (= out (* 1.0 x)))\n";
const BL_PLAIN_NL: &str =
    "(declare-const x Real)\n(declare-const out Real)\n(assert (= out (* 1.0 x)))\n";
const BL_PROG: &str = "let x = <input>\nlet fee = x\n";
const BL_BOUNDS: &str = r#"[ {"type": "outputs", "variables": ["out", "fee"]},
  {"type": "equals", "variables": ["nl.x", "bl.x"]} ]"#;

fn bl_case(dir: &Path, name: &str, nl: &str) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("nl.smt2"), nl).unwrap();
    std::fs::write(d.join("prog.bl"), BL_PROG).unwrap();
    std::fs::write(d.join("bounds.json"), BL_BOUNDS).unwrap();
    d
}

/// The formalization has no solution at all, which no solver can prove: the totality
/// and no-assignment checks answer unknown, and the verdict must be unknown (exit 2)
/// with the checks named, not `[Consistent]`.
#[test]
fn consistency_unknown_diagnostic_is_not_a_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let d = bl_case(tmp.path(), "fermat", BL_FERMAT_NL);
    let p = |f: &str| d.join(f).display().to_string();
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "consistency",
            "--solver",
            solver,
            "--timeout",
            "0.5",
            "--nl",
            &p("nl.smt2"),
            "--impl",
            &p("prog.bl"),
            "--bounds",
            &p("bounds.json"),
        ]);
        assert_eq!(code, 2, "{solver}: {out}{err}");
        assert!(out.contains("[Unknown]"), "{solver}: {out}");
        assert!(!out.contains("[Consistent]"), "{solver}: {out}");
        assert!(out.contains("totality check"), "{solver}: {out}");
        assert!(out.contains("time limit"), "{solver}: {out}");
    }
}

/// In a batch the same case is an unknown row with its reason, counted as unknown in
/// the dataset's summary; the batch exits 2.
#[test]
fn consistency_batch_unknown_case_is_an_unknown_row() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    bl_case(&root, "fermat", BL_FERMAT_NL);
    bl_case(&root, "plain", BL_PLAIN_NL);
    let root = root.display().to_string();
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&[
            "consistency",
            "--solver",
            solver,
            "--timeout",
            "0.5",
            "--batch",
            &root,
        ]);
        assert_eq!(code, 2, "{solver}: {out}{err}");
        let row = out
            .lines()
            .find(|l| l.starts_with("fermat"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(row.contains("unknown"), "{solver}: {row}");
        assert!(row.contains("totality check"), "{solver}: {row}");
        let plain = out.lines().find(|l| l.starts_with("plain")).unwrap();
        assert!(plain.contains("consistent"), "{solver}: {plain}");
        assert!(
            out.contains("set              2          1            0        1        0      0"),
            "{solver}: {out}"
        );
        let (code, json, _) = vera(&[
            "consistency",
            "--solver",
            solver,
            "--timeout",
            "0.5",
            "--batch",
            &root,
            "--format",
            "json",
        ]);
        assert_eq!(code, 2);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["summary"][0]["unknown"], 1, "{json}");
        assert_eq!(v["cases"][0]["verdict"], "unknown", "{json}");
        assert!(
            v["cases"][0]["reason"]
                .as_str()
                .unwrap()
                .contains("totality check"),
            "{json}"
        );
    }
}

/// A folder with two candidate formalizations is a `not checked` row with the reason
/// and how to name the file (exit 2), never skipped silently; the totals row counts
/// it; shards run with --jobs and merged with --merge give the whole batch's rows.
#[test]
fn consistency_batch_rows_shards_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    for name in ["a", "b", "c"] {
        bl_case(&root, name, BL_PLAIN_NL);
    }
    let two = bl_case(&root, "two", BL_PLAIN_NL);
    std::fs::rename(two.join("nl.smt2"), two.join("first.smt2")).unwrap();
    std::fs::write(two.join("second.smt2"), BL_PLAIN_NL).unwrap();
    let r = root.display().to_string();
    let (code, out, err) = vera(&["consistency", "--batch", &r, "--jobs", "2"]);
    assert_eq!(code, 2, "{out}{err}");
    let row = out.lines().find(|l| l.starts_with("two")).unwrap();
    assert!(row.contains("not checked"), "{row}");
    assert!(row.contains("first.smt2, second.smt2"), "{row}");
    assert!(
        row.contains("rename the documentation's formalization to nl.smt2"),
        "{row}"
    );
    assert!(
        out.contains(
            "total            3          3            0        0        0      0           1"
        ),
        "{out}"
    );
    let a = out.lines().find(|l| l.starts_with("a ")).unwrap();
    assert!(a.contains("[bounds: its bounds.json]"), "{a}");
    // Two shards, then the merge.
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let f = tmp.path().join(format!("shard-{}.json", &k[..1]));
        let (code, out, err) = vera(&[
            "consistency",
            "--batch",
            &r,
            "--shard",
            k,
            "--format",
            "json",
            "-o",
            &f.display().to_string(),
        ]);
        assert!(code == 0 || code == 2, "{out}{err}");
        files.push(f.display().to_string());
    }
    let mut args = vec!["consistency", "--merge"];
    args.extend(files.iter().map(String::as_str));
    let (code, merged, err) = vera(&args);
    assert_eq!(code, 2, "{merged}{err}");
    for name in ["a", "b", "c", "two"] {
        assert!(
            merged.lines().any(|l| l.starts_with(name)),
            "{name}\n{merged}"
        );
    }
    assert!(
        merged.contains(
            "total            3          3            0        0        0      0           1"
        ),
        "{merged}"
    );
    // A shard missing: an error that says which.
    let (code, _, err) = vera(&["consistency", "--merge", &files[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("shard 2 of 2 missing"), "{err}");
}

/// Accepted exceptions on file: an exceptions.toml next to the program is read, the
/// verdict says which exception it rests on, and a broader-than-needed exception
/// (federal's program taxes SINs 900000000..8999999999) is shown with a witness; in a
/// batch, the dataset's file applies to every case and the rows say the same.
#[test]
fn consistency_reads_accepted_exceptions_on_file() {
    let tmp = tempfile::tempdir().unwrap();
    let set = tmp.path().join("cra");
    for region in ["ab", "federal"] {
        let d = set.join(region);
        std::fs::create_dir_all(&d).unwrap();
        for f in [format!("{region}.smt2"), "prog.bl".to_string()] {
            std::fs::copy(
                root().join(format!("testdata/fees-dataset/cra-25/{region}/{f}")),
                d.join(&f),
            )
            .unwrap();
        }
    }
    let file = r#"[[exception]]
id = "sin_exception"
assume = "(< sin 900000000)"
reason = "temporary workers taxed elsewhere"
accepted_by = "J. Tremblay"
date = "2026-11-02"
"#;
    std::fs::write(set.join("ab/exceptions.toml"), file).unwrap();
    let ab = set.join("ab");
    let p = |f: &str| ab.join(f).display().to_string();
    let (code, out, err) = vera(&[
        "consistency",
        "--nl",
        &p("ab.smt2"),
        "--impl",
        &p("prog.bl"),
        "--bounds",
        "examples/fees/cra-bounds.json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "with 1 accepted exception (sin_exception: temporary workers taxed elsewhere)"
        ),
        "{out}"
    );
    // --no-exceptions: the one-off run without it diverges.
    let (code, _, _) = vera(&[
        "consistency",
        "--nl",
        &p("ab.smt2"),
        "--impl",
        &p("prog.bl"),
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--no-exceptions",
    ]);
    assert_eq!(code, 1);
    // The dataset's file applies to both cases of a batch.
    std::fs::remove_file(set.join("ab/exceptions.toml")).unwrap();
    std::fs::write(set.join("exceptions.toml"), file).unwrap();
    let (code, out, err) = vera(&[
        "consistency",
        "--batch",
        &set.display().to_string(),
        "--bounds",
        "examples/fees/cra-bounds.json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let federal = out.lines().find(|l| l.starts_with("federal")).unwrap();
    assert!(
        federal.contains("exception sin_exception is broader than needed"),
        "{federal}"
    );
    let ab = out.lines().find(|l| l.starts_with("ab")).unwrap();
    assert!(
        ab.contains("with 1 accepted exception (sin_exception:"),
        "{ab}"
    );
    // The single check of federal with the dataset's file given explicitly.
    let f = set.join("federal");
    let (code, out, err) = vera(&[
        "consistency",
        "--nl",
        &f.join("federal.smt2").display().to_string(),
        "--impl",
        &f.join("prog.bl").display().to_string(),
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--exceptions",
        &set.join("exceptions.toml").display().to_string(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("[Exception broader than needed] sin_exception"),
        "{out}"
    );
    // --strict-exceptions: the broader exception fails the run; SARIF carries it as a
    // warning located in the exceptions file (the batch likewise).
    let (code, out, err) = vera(&[
        "consistency",
        "--nl",
        &f.join("federal.smt2").display().to_string(),
        "--impl",
        &f.join("prog.bl").display().to_string(),
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--exceptions",
        &set.join("exceptions.toml").display().to_string(),
        "--strict-exceptions",
        "--format",
        "sarif",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).expect("SARIF JSON");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let broader = results
        .iter()
        .find(|r| r["ruleId"] == "VERA-EXCEPTION-BROADER")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(broader["level"], "warning", "{broader}");
    assert!(
        broader["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .is_some_and(|u| u.ends_with("exceptions.toml")),
        "{broader}"
    );
    let (code, _, _) = vera(&[
        "consistency",
        "--batch",
        &set.display().to_string(),
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--strict-exceptions",
    ]);
    assert_eq!(code, 1);
}

/// A symbolic link cycle under a batch folder (`DIR/plain/loop -> ..`) is not followed:
/// the case is checked once and the link is reported as skipped.
#[cfg(unix)]
#[test]
fn consistency_batch_does_not_follow_a_symlink_cycle() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    let d = bl_case(&root, "plain", BL_PLAIN_NL);
    std::os::unix::fs::symlink("..", d.join("loop")).unwrap();
    let (code, out, err) = vera(&["consistency", "--batch", &root.display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\n1 cases in"), "{out}");
    assert!(err.contains("skipped"), "{err}");
    assert!(err.contains("loop: symbolic link to a folder"), "{err}");
}

/// A nested rule of 100,050 rows on one line (about 4 MB) passes the nesting limit: the error
/// names file:line:col and shows a short excerpt, not the line.
#[test]
fn bl_check_of_a_deeply_nested_rule_prints_a_short_located_error() {
    let tmp = tempfile::tempdir().unwrap();
    let pad = "";
    let mut text = String::from("let income = <input>\nlet tax = ");
    for i in 0..100_050 {
        text.push_str(&format!(
            "if income <= {i}000.25 then {i}.5 * income{pad} else "
        ));
    }
    text.push_str("0\n");
    let path = tmp.path().join("rule.bl");
    std::fs::write(&path, &text).unwrap();
    let (code, out, err) = vera(&["bl", "check", &path.display().to_string()]);
    assert_eq!(code, 2, "{out}");
    assert!(err.len() < 2_000, "{} bytes on stderr", err.len());
    assert!(err.contains("rule.bl:2:"), "{err}");
    assert!(err.contains("nested more than 100000 levels"), "{err}");
}

/// Folder names and names in input files reach the terminal with control characters
/// escaped: no escape sequence, and no forged report line.
#[cfg(unix)]
#[test]
fn consistency_output_escapes_control_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("set");
    bl_case(&root, "ok\u{1b}[2J\n[Consistent] forged row", BL_PLAIN_NL);
    let d = bl_case(
        &root,
        "named",
        "(declare-const x Real)\n(declare-const |z\n[Consistent] forged \u{1b}[31mred| Real)\n(declare-const out Real)\n(assert (= out (* 1.0 x)))\n",
    );
    let (_, out, err) = vera(&["consistency", "--batch", &root.display().to_string()]);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(
        !out.lines().any(|l| l.starts_with("[Consistent] forged")),
        "{out}"
    );
    assert!(
        out.contains("ok\\u{1b}[2J\\n[Consistent] forged row"),
        "{out}{err}"
    );
    let p = |f: &str| d.join(f).display().to_string();
    let (code, out, err) = vera(&[
        "consistency",
        "--nl",
        &p("nl.smt2"),
        "--impl",
        &p("prog.bl"),
        "--bounds",
        &p("bounds.json"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(
        !out.lines().any(|l| l.starts_with("[Consistent] forged")),
        "{out}"
    );
    assert!(
        out.contains("z\\n[Consistent] forged \\u{1b}[31mred"),
        "{out}"
    );
}

// ---------------------------------------------------------------------------------
// `vera smt check` on hostile and tricky scripts, compared with the solvers run
// directly where they agree.
// ---------------------------------------------------------------------------------

/// Runs vera with extra environment variables.
fn vera_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vera"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .output()
        .expect("vera runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The answers of `vera smt check --format json` on one file.
fn smt_answers(solver: &str, file: &Path) -> Vec<String> {
    let (code, out, err) = vera(&[
        "smt",
        "check",
        "--solver",
        solver,
        "--format",
        "json",
        file.to_str().unwrap(),
    ]);
    assert!(
        code == 0 || code == 1,
        "{solver}: exit {code}\n{out}\n{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["files"][0]["error"].is_null(), "{solver}: {out}");
    v["files"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["answer"].as_str().unwrap().to_string())
        .collect()
}

/// The check-sat answers of the solver run directly on the file.
fn direct_answers(solver: &str, file: &Path) -> Vec<String> {
    let mut cmd = Command::new(solver);
    if solver == "cvc5" {
        cmd.args(["--incremental", "--quiet"]);
    }
    let out = cmd.arg(file).output().expect("solver runs");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| matches!(*l, "sat" | "unsat" | "unknown"))
        .map(str::to_string)
        .collect()
}

fn smt_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn smt_reset_assertions_and_reset_agree_with_z3_and_cvc5() {
    let dir = tempfile::tempdir().unwrap();
    let f = smt_file(
        dir.path(),
        "resets.smt2",
        "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (> x 0))\n(push 1)\n\
         (assert (< x 0))\n(check-sat)\n(reset-assertions)\n(declare-const y Int)\n\
         (assert (> y 5))\n(check-sat)\n(reset)\n(set-logic QF_LRA)\n\
         (declare-const x Real)\n(assert (< x 0.5))\n(check-sat)\n",
    );
    for solver in ["z3", "cvc5"] {
        assert_eq!(
            direct_answers(solver, &f),
            ["unsat", "sat", "sat"],
            "{solver}"
        );
        assert_eq!(smt_answers(solver, &f), ["unsat", "sat", "sat"], "{solver}");
    }
}

#[test]
fn smt_reset_assertions_forgets_declarations_as_cvc5_does() {
    // SMT-LIB: without :global-declarations, reset-assertions removes declarations;
    // cvc5 follows it (z3 keeps them, and rejects the new declaration of x).
    let dir = tempfile::tempdir().unwrap();
    let f = smt_file(
        dir.path(),
        "redeclare.smt2",
        "(declare-const x Int)\n(assert (> x 0))\n(assert (< x 0))\n(check-sat)\n\
         (reset-assertions)\n(declare-const x Int)\n(assert (= x 3))\n(check-sat)\n",
    );
    assert_eq!(direct_answers("cvc5", &f), ["unsat", "sat"]);
    for solver in ["z3", "cvc5"] {
        assert_eq!(smt_answers(solver, &f), ["unsat", "sat"], "{solver}");
    }
    // Using x after reset-assertions without declaring it again is an error, located.
    let g = smt_file(
        dir.path(),
        "stale.smt2",
        "(declare-const x Int)\n(assert (> x 0))\n(assert (< x 0))\n\
         (reset-assertions)\n(assert (> x 5))\n(check-sat)\n",
    );
    let (code, out, err) = vera(&["smt", "check", g.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("stale.smt2:5:12: error: undeclared symbol `x`"),
        "{err}"
    );
}

#[test]
fn smt_global_declarations_are_refused_with_a_location() {
    let dir = tempfile::tempdir().unwrap();
    let f = smt_file(
        dir.path(),
        "global.smt2",
        "(set-option :global-declarations true)\n(declare-const x Int)\n(check-sat)\n",
    );
    let (code, out, err) = vera(&["smt", "check", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("global.smt2:1:1: error:") && err.contains(":global-declarations"),
        "{err}"
    );
}

#[test]
fn smt_doubling_definition_chain_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("(declare-const x Int)\n(define-fun f1 () Int (+ x x))\n");
    for i in 2..=60 {
        text.push_str(&format!(
            "(define-fun f{i} () Int (+ f{} f{}))\n",
            i - 1,
            i - 1
        ));
    }
    text.push_str("(assert (> f60 0))\n(check-sat)\n");
    let f = smt_file(dir.path(), "chain.smt2", &text);
    let t = std::time::Instant::now();
    assert_eq!(smt_answers("z3", &f), ["sat"]);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn smt_huge_push_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = smt_file(dir.path(), "push.smt2", "(push 1000000000)\n(check-sat)\n");
    let t = std::time::Instant::now();
    let (code, out, err) = vera(&["smt", "check", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("push.smt2:1:7: error:"), "{err}");
    assert!(err.contains("10000 open scopes"), "{err}");
    assert!(t.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn smt_model_with_a_70000_character_name_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let name = "v".repeat(70_000);
    let f = smt_file(
        dir.path(),
        "long.smt2",
        &format!("(declare-const {name} Int)\n(declare-const y Int)\n(assert (= {name} (+ y 1) 8))\n(check-sat)\n"),
    );
    let (code, out, err) = vera(&["smt", "check", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("  {name} = 8\n")), "{}", out.len());
    assert!(out.contains(&format!("  y{} = 7\n", " ".repeat(70_000 - 1))));
}

#[test]
fn smt_solver_lying_with_an_empty_core_is_an_error() {
    let liar = root().join("crates/solver/tests/fixtures/lie-empty-core.py");
    let (code, out, err) = vera_env(
        &["smt", "check", "examples/smt/pump-ok.smt2"],
        &[("VERA_Z3", liar.to_str().unwrap())],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(!out.contains("unsat"), "{out}");
    assert!(err.contains("the solver's unsat answer is wrong"), "{err}");
}

#[test]
fn smt_solver_answering_sat_to_everything_is_refused() {
    for (solver, var) in [("z3", "VERA_Z3"), ("cvc5", "VERA_CVC5")] {
        let fake = root().join("crates/solver/tests/fixtures/sat-to-everything.sh");
        let (code, out, err) = vera_env(
            &[
                "smt",
                "check",
                "--solver",
                solver,
                "examples/smt/pump-limits.smt2",
            ],
            &[(var, fake.to_str().unwrap())],
        );
        assert_eq!(code, 2, "{solver}: {out}{err}");
        assert!(err.contains("trivially unsat"), "{solver}: {err}");
    }
}

#[test]
fn audit_reads_a_csv_by_header_names_or_a_column_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.toml");
    std::fs::write(
        &schema,
        "[[variables]]\nname = \"temp\"\nsort = \"Real\"\n[[variables]]\nname = \"alarm\"\nsort = \"Bool\"\n",
    )
    .unwrap();
    let s = schema.display().to_string();
    // Hanfor-like: ID,Description,...,Type with a heading row; the formulas in `SMT`.
    let hanfor = dir.path().join("hanfor.csv");
    std::fs::write(
        &hanfor,
        "ID,Description,Formal Text,Type,SMT\n\
         H1,Alarms,,Heading,\n\
         REQ-1,Alarm above 40.,,requirement,(=> (> temp 40) alarm)\n\
         REQ-2,No alarm below 10.,,requirement,(=> (< temp 10) (not alarm))\n",
    )
    .unwrap();
    let h = hanfor.display().to_string();
    let (code, out, err) = vera(&["audit", &h, "--schema", &s]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("2 of 2 formalized requirements"), "{out}");
    assert!(
        err.contains(
            "note: skipped as not requirements: 1 row(s) whose `Type` is `Heading` (line 2)"
        ),
        "{err}"
    );
    // Another layout: one error naming the headers and the flag, not one per row.
    let other = dir.path().join("other.csv");
    std::fs::write(
        &other,
        "ReqID,Body,Logic\nA-1,Alarm above 40.,(=> (> temp 40) alarm)\nA-2,Quiet below 10.,(=> (< temp 10) (not alarm))\n",
    )
    .unwrap();
    let o = other.display().to_string();
    let (code, out, err) = vera(&["audit", &o, "--schema", &s]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert_eq!(err.matches(": error:").count(), 1, "{err}");
    assert!(
        err.contains("`ReqID`, `Body`, `Logic`") && err.contains("--csv-columns"),
        "{err}"
    );
    let (code, out, err) = vera(&[
        "audit",
        &o,
        "--schema",
        &s,
        "--csv-columns",
        "id=ReqID,text=Body,formula=Logic",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("2 of 2 formalized requirements"), "{out}");
    // A bad mapping is refused by the command line; a mapping for a TOML spec too.
    let (code, _, err) = vera(&["audit", &o, "--schema", &s, "--csv-columns", "row=ReqID"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown role `row`"), "{err}");
    let (code, _, err) = vera(&["audit", &s, "--csv-columns", "id=ReqID"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--csv-columns is for CSV requirement files"),
        "{err}"
    );
}

fn spec_file(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A requirement written as an invariant where a condition was meant forces its
/// variable in every state; the redundancy findings it causes name it. A formula that
/// holds in every state is reported without empty lists.
#[test]
fn audit_names_a_forcing_requirement_and_never_prints_empty_lists() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        "forcing.toml",
        r#"[spec]
name = "forcing"

[[variables]]
name = "temp"
sort = "Real"
unit = "degC"

[[variables]]
name = "alarm"
sort = "Bool"

[[variables]]
name = "fan"
sort = "Bool"

[[requirements]]
id = "R1"
text = "If the temperature exceeds 40 degC, the alarm shall sound."
formula = "alarm"

[[requirements]]
id = "R2"
text = "If the temperature exceeds 50 degC, the alarm shall sound."
formula = "(=> (> temp 50) alarm)"

[[requirements]]
id = "R3"
text = "The fan shall run or not run."
formula = "(or fan (not fan))"

[[requirements]]
id = "R4"
text = "Above 30 degC the fan shall run."
formula = "(=> (> temp 30) fan)"
"#,
    );
    for solver in ["z3", "cvc5"] {
        let (code, out, err) = vera(&["audit", "--solver", solver, &spec]);
        assert_eq!(code, 1, "{solver}\n{out}\n{err}");
        assert!(!out.contains("by )") && !out.contains("of )"), "{out}");
        let out = out.replace(&dir.path().display().to_string(), "<dir>");
        insta::assert_snapshot!("audit_forcing", without_query_count(&out));
    }
    let (_, out, _) = vera(&["audit", "--format", "json", &spec]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["redundancy_causes"],
        serde_json::json!([{"redundant": "R2", "requirement": "R1", "variable": "alarm", "value": "true"}])
    );
}

/// Conflicts the environment can force come before the consistency line, and that line
/// does not say "consistent" above them.
#[test]
fn audit_prints_conflicts_before_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        "beams.toml",
        r#"[spec]
name = "beams"

[[variables]]
name = "darkness"
sort = "Bool"
role = "input"

[[variables]]
name = "daylight"
sort = "Bool"
role = "input"

[[variables]]
name = "low_beam"
sort = "Bool"
role = "output"

[[requirements]]
id = "L1"
text = "With the darkness switch on, the low beams are on."
formula = "(=> darkness low_beam)"

[[requirements]]
id = "L2"
text = "In daylight the low beams are off."
formula = "(=> daylight (not low_beam))"
"#,
    );
    let (code, out, err) = vera(&["audit", &spec]);
    assert_eq!(code, 1, "{out}\n{err}");
    let conflict = out.find("conflict for some inputs 1").expect("a conflict");
    let consistency = out.find("consistency:").expect("a consistency line");
    assert!(conflict < consistency, "{out}");
    assert!(!out.contains("consistency: consistent"), "{out}");
    let out = out.replace(&dir.path().display().to_string(), "<dir>");
    insta::assert_snapshot!("audit_beams", without_query_count(&out));
}

/// A spec that cannot be loaded: its warnings are printed as `warning:`, never after an
/// `error:` prefix, and one closing line says why nothing ran.
#[test]
fn load_warnings_are_not_printed_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_file(
        dir.path(),
        "bad.toml",
        "[[variables]]\nname = \"x\"\nsort = \"Int\"\n[[variables]]\nname = \"unused\"\nsort = \"Int\"\n[[requirements]]\nid = \"R1\"\ntext = \"t\"\nformula = \"(> y 1)\"\n[[requirements]]\nid = \"R2\"\ntext = \"u\"\n",
    );
    for args in [vec!["audit", &spec], vec!["equiv", &spec, "(> x 1)"]] {
        let cmd = args[0];
        let (code, out, err) = vera(&args);
        assert_eq!(code, 2, "{cmd}\n{out}\n{err}");
        assert!(
            err.contains(": warning: requirement `R2` is not formalized"),
            "{err}"
        );
        assert!(err.contains(": error: undeclared symbol `y`"), "{err}");
        for line in err.lines() {
            assert!(
                !(line.contains("error:") && line.contains("warning:")),
                "{cmd}: {line}\n{err}"
            );
        }
        assert!(
            err.contains("cannot be used: 1 error(s) above"),
            "{cmd}\n{err}"
        );
    }
}

/// Flags that do not apply to a mode of `vera consistency` are refused by the parser,
/// never silently ignored.
#[test]
fn consistency_flags_of_another_mode_are_refused() {
    for (args, clash) in [
        (
            &["--nl-text", "r.txt", "--impl", "p.bl", "--enumerate"][..],
            "--enumerate",
        ),
        (
            &["--nl-text", "r.txt", "--impl", "p.bl", "--max-regions", "3"][..],
            "--max-regions",
        ),
        (
            &[
                "--nl-text",
                "r.txt",
                "--impl",
                "p.bl",
                "--no-same-name-mapping",
            ][..],
            "--no-same-name-mapping",
        ),
        (
            &["--nl", "a.smt2", "--impl", "p.bl", "--theta", "0.5"][..],
            "--theta",
        ),
        (
            &["--batch", "dir", "--variables", "m.json"][..],
            "--variables",
        ),
        (
            &["--nl", "a.smt2", "--impl", "p.bl", "--translations", "5"][..],
            "--translations",
        ),
    ] {
        let (code, out, err) = vera(&[&["consistency"][..], args].concat());
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("cannot be used with") && err.contains(clash),
            "{args:?}: {err}"
        );
    }
}

/// The terminal report of a consistency check, in the style of Fig. 2 of the SIRNA
/// paper: the federal program stops taxing at SIN 9000000000, one region per tax
/// bracket with the difference as a formula (golden file).
#[test]
fn consistency_report_reads_like_fig_2() {
    let (code, out, err) = vera(&[
        "consistency",
        "--nl",
        "testdata/fees-dataset/cra-25/federal/federal.smt2",
        "--impl",
        "testdata/fees-dataset/cra-25/federal/prog.bl",
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--enumerate",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    for line in [
        "[Inconsistency Found]",
        "(replayed by the BL interpreter)",
        "  - 0 < income <= 57375 and sin >= 9000000000",
        "      BL - NL = -0.145*income, from -8319.375 to 0 (excluded)",
        "The 5 regions are disjoint and cover the divergence exactly (checked by the solver).",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    insta::assert_snapshot!("consistency_federal_fig_2", out);
}

/// Options a mode would ignore are refused by the parser: the cache folder without the
/// cache, a scenario beside a questions file (each question has its own), and the
/// screening options of `clarify` when it only applies a proposals file.
#[test]
fn options_a_mode_would_ignore_are_refused() {
    for (args, clash) in [
        (
            &["audit", "s.toml", "--no-cache", "--cache-dir", "d"][..],
            "--cache-dir",
        ),
        (
            &[
                "ask",
                "s.toml",
                "--questions",
                "q.toml",
                "--scenario",
                "true",
            ][..],
            "--scenario",
        ),
        (
            &["clarify", "s.toml", "--apply", "p.json", "--rounds", "2"][..],
            "--rounds",
        ),
        (
            &["clarify", "s.toml", "--apply", "p.json", "--samples", "3"][..],
            "--samples",
        ),
        (
            &["clarify", "s.toml", "--apply", "p.json", "--only", "R1"][..],
            "--only",
        ),
    ] {
        let (code, out, err) = vera(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("cannot be used with") && err.contains(clash),
            "{args:?}: {err}"
        );
    }
    // --out names the clarified spec of --apply: alone it is refused.
    let (code, _, err) = vera(&["clarify", "s.toml", "--out", "c.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("--apply"), "{err}");
}

/// `vera clarify --apply` refuses a proposal made for a text the requirement no longer
/// has (or for a requirement the spec does not have) and writes nothing: applying it
/// would silently replace a later edit.
#[test]
fn clarify_apply_refuses_proposals_made_for_another_text() {
    let t = tempfile::tempdir().unwrap();
    let spec = t.path().join("s.toml");
    std::fs::write(
        &spec,
        "[[variables]]\nname = \"x\"\nsort = \"Int\"\n\n[[requirements]]\nid = \"R1\"\ntext = \"x is at most 5.\"\nformula = \"(<= x 5)\"\n",
    )
    .unwrap();
    let proposals = |id: &str, original: &str| {
        format!(
            r#"{{"schema":"vera.clarify.v1","file":"s.toml","proposals":[{{"id":"{id}","original":"{original}","clarified":"x is 5 or less.","rounds":1,"classes_before":2,"classes_after":1,"converged":true,"accepted":true,"formula":"(<= x 5)","history":[]}}]}}"#
        )
    };
    let p = t.path().join("p.json");
    let out = t.path().join("out.toml");
    let args = [
        "clarify",
        spec.to_str().unwrap(),
        "--apply",
        p.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    for (id, original, why) in [
        (
            "R1",
            "x is at most  4.",
            "changed since the proposal was made",
        ),
        ("R9", "x is at most 5.", "no requirement with this id"),
    ] {
        std::fs::write(&p, proposals(id, original)).unwrap();
        let (code, stdout, err) = vera(&args);
        assert_eq!(code, 2, "{stdout}{err}");
        assert!(err.contains(why) && err.contains(id), "{err}");
        assert!(err.contains("nothing written"), "{err}");
        assert!(!out.exists());
    }
    // The same proposal for the text as it reads (white space aside) is applied.
    std::fs::write(&p, proposals("R1", "x is  at most 5.")).unwrap();
    let (code, stdout, err) = vera(&args);
    assert_eq!(code, 0, "{stdout}{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("x is 5 or less."), "{written}");
}

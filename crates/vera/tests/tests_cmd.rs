//! `vera tests` end to end with real solvers: the suite of the shipped hemodialysis spec
//! as text, CSV test table and traceability matrix (golden files), its HTML page and
//! SARIF log, and bad input (an inconsistent spec, a format the command does not offer).

#[path = "../../report/tests/support/chromium.rs"]
mod chromium;
mod common;
use common::{root, vera};

const HEMO: &str = "examples/hemodialysis/hemodialysis.toml";
const ROLES: &str = "examples/hemodialysis/test-roles.toml";

/// The text with the run time (the one part that changes between runs) replaced.
fn without_time(text: &str) -> String {
    text.lines()
        .map(|l| match (l.find(", "), l.rfind(" s)")) {
            (Some(_), Some(end)) if l.contains("formalized requirement") => {
                let start = l[..end].rfind(", ").expect("the time follows a comma");
                format!("{}, <time>{}", &l[..start], &l[end + 2..])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn hemodialysis_suite_as_text() {
    let (code, out, err) = vera(&["tests", HEMO, "--roles", ROLES]);
    assert_eq!(
        code, 1,
        "unreachable obligations and unformalized requirements are findings\n{err}"
    );
    assert!(
        out.contains("re-checked in a fresh solver process: 48 of 48 cases valid"),
        "{out}"
    );
    insta::assert_snapshot!("tests_hemodialysis_human", without_time(&out));
}

#[test]
fn hemodialysis_test_table_and_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("matrix.csv");
    let (code, out, err) = vera(&[
        "tests",
        HEMO,
        "--roles",
        ROLES,
        "--format",
        "csv",
        "--matrix",
        matrix.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let matrix = std::fs::read_to_string(&matrix).unwrap();
    // One row per case plus the header; one row per requirement plus the header.
    assert_eq!(out.lines().count(), 49);
    assert_eq!(matrix.lines().count(), 53);
    assert!(
        out.starts_with("id,obligations,requirements,phase,"),
        "{out}"
    );
    insta::assert_snapshot!("tests_hemodialysis_csv", out);
    insta::assert_snapshot!("tests_hemodialysis_matrix", matrix);
    // An existing matrix file is not replaced without --force.
    let again = dir.path().join("matrix.csv");
    let (code, _, err) = vera(&[
        "tests",
        HEMO,
        "--roles",
        ROLES,
        "--matrix",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
}

#[test]
fn hemodialysis_page_and_sarif() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("tests.html");
    let (code, _, err) = vera(&[
        "tests",
        HEMO,
        "--roles",
        ROLES,
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.to_ascii_lowercase().contains("<script"), "no scripts");
    // Rendered by a real browser: a card per requirement, the unreachable ones flagged,
    // the matrix and the table.
    let dom = chromium::run_chromium(&dir.path().join("profile"), &page, &["--dump-dom"]);
    for text in [
        "vera tests: Hemodialysis machine: safety requirements",
        "R-ART-1 (line 288)",
        "R-COND-3 (line 418)",
        "R-UI-1",
        "3 unreachable",
        "not formalized",
        "Traceability matrix",
        "TC-048",
        "the requirement can never apply: ruled out by R-COND-1",
    ] {
        assert!(dom.contains(text), "{text} missing from the rendered page");
    }
    let (code, sarif, _) = vera(&["tests", "no/such/spec.toml", "--format", "sarif"]);
    assert_eq!(code, 2, "{sarif}");
    let small = root().join("crates/vera/tests/fixtures/tests-small.toml");
    let (code, sarif, err) = vera(&["tests", small.to_str().unwrap(), "--format", "sarif"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let rules: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"VERA-TESTS-UNREACHABLE"), "{rules:?}");
    assert!(rules.contains(&"VERA-TESTS-NOT-FORMALIZED"), "{rules:?}");
}

#[test]
fn bad_input_is_an_error_never_a_suite() {
    let (code, out, err) = vera(&[
        "tests",
        "examples/hemodialysis/hemodialysis-inconsistent.toml",
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("the spec is inconsistent"), "{err}");
    assert!(out.is_empty(), "{out}");
    let small = "crates/vera/tests/fixtures/tests-small.toml";
    let (code, _, err) = vera(&["tests", small, "--format", "junit"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no junit output"), "{err}");
    let (code, _, err) = vera(&["tests", small, "--inputs", "x,nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("`nope` is not a variable"), "{err}");
    let (code, _, err) = vera(&["tests", small, "--step", "x=0.5"]);
    assert_eq!(code, 2);
    assert!(err.contains("only Real variables take a step"), "{err}");
    let (code, _, err) = vera(&["tests", small, "--step=-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("positive"), "{err}");
}

/// A script in `dir`: `#!/bin/sh` and `body`.
fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn run_a_c_function_a_tax_rule_and_executables() {
    // The shipped C example through its generated driver: every case passes.
    let (code, out, err) = vera(&[
        "tests",
        "run",
        "examples/c/clamp-spec.toml",
        "--impl",
        "examples/c/clamp.c",
        "--function",
        "clamp",
        "--format",
        "junit",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = roxmltree::Document::parse(&out).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert!(cases.len() >= 3, "{out}");
    assert!(
        !out.contains("<failure") && !out.contains("<error"),
        "{out}"
    );
    // The Ontario rule with its second bracket's top mistyped (SIRNA's example).
    let dir = tempfile::tempdir().unwrap();
    let prog =
        std::fs::read_to_string(root().join("testdata/fees-dataset/cra-25/on/prog.bl")).unwrap();
    let typo = dir.path().join("on-typo.bl");
    std::fs::write(
        &typo,
        prog.replace("105775 then 105775", "105757 then 105757"),
    )
    .unwrap();
    let args = |imp: &str, format: &str| -> (i32, String, String) {
        vera(&[
            "tests",
            "run",
            "testdata/fees-dataset/cra-25/on/on.smt2",
            "--bounds",
            "examples/fees/cra-bounds.json",
            "--impl",
            imp,
            "--fix",
            "sin=123456789",
            "--format",
            format,
        ])
    };
    let (code, out, err) = args("testdata/fees-dataset/cra-25/on/prog.bl", "human");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 failed, 0 errors"), "{out}");
    let (code, out, err) = args(typo.to_str().unwrap(), "human");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("inputs: Income = 105774.99"), "{out}");
    assert!(
        out.contains("violates on.smt2:10, on.smt2:14; FinalTaxes expected"),
        "{out}"
    );
    let (code, sarif, _) = args(typo.to_str().unwrap(), "sarif");
    assert_eq!(code, 1);
    assert!(sarif.contains("VERA-TESTS-CASE-FAILED"), "{sarif}");
    // A crashing executable: every case an error, exit 2, never a pass.
    let crash = script(dir.path(), "crash", "kill -SEGV $$");
    let (code, out, _) = vera(&[
        "tests",
        "run",
        "examples/c/clamp-spec.toml",
        "--impl",
        &crash,
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("0 passed, 0 failed"), "{out}");
    assert!(out.contains("crashed (signal 11)"), "{out}");
    // A correct one written as a script (the columns are named as the variables).
    let good = script(
        dir.path(),
        "clamp.sh",
        "awk -F, 'NR == 2 { x = $1; lo = $2; hi = $3; r = x; if (x < lo) r = lo; if (x > hi) r = hi; print r }'",
    );
    let (code, out, err) = vera(&[
        "tests",
        "run",
        "examples/c/clamp-spec.toml",
        "--impl",
        &good,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // Setup errors name what is missing.
    let (code, _, err) = vera(&[
        "tests",
        "run",
        "testdata/fees-dataset/cra-25/on/on.smt2",
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--impl",
        "testdata/fees-dataset/cra-25/on/prog.bl",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("BL input `sin` has no spec variable"), "{err}");
    let (code, _, err) = vera(&[
        "tests",
        "run",
        "examples/c/clamp-spec.toml",
        "--impl",
        "examples/c/clamp.c",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--function"), "{err}");
}

#[test]
fn cover_a_suite_with_an_impossible_vector_and_bad_cells() {
    let dir = tempfile::tempdir().unwrap();
    let small = "crates/vera/tests/fixtures/tests-small.toml";
    let suite = dir.path().join("suite.csv");
    std::fs::write(
        &suite,
        "id,x,alarm,note\nA,60,false,wrong\nB,60,true,\nC,40,,\n",
    )
    .unwrap();
    let (code, out, err) = vera(&["tests", "cover", small, suite.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("3 vectors (2 valid, 1 no valid system could produce)"),
        "{out}"
    );
    assert!(out.contains("A (line 2): contradicts R1"), "{out}");
    assert!(
        out.contains("columns that name no variable (not read): note"),
        "{out}"
    );
    assert!(
        out.contains("R1           4 of 7 met; missed T1@at T1@above T1@below"),
        "{out}"
    );
    let (code, sarif, _) = vera(&[
        "tests",
        "cover",
        small,
        suite.to_str().unwrap(),
        "--format",
        "sarif",
    ]);
    assert_eq!(code, 1);
    assert!(sarif.contains("VERA-TESTS-INVALID-VECTOR") && sarif.contains("VERA-TESTS-MISSED"));
    std::fs::write(&suite, "x,alarm\n1.5,true\n3,maybe\n").unwrap();
    let (code, _, err) = vera(&["tests", "cover", small, suite.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("suite.csv:2:1: x: `1.5` is not a whole number"),
        "{err}"
    );
    assert!(
        err.contains("suite.csv:3:2: alarm: `maybe` is not a Boolean"),
        "{err}"
    );
}

#[test]
fn timed_spec_gives_timing_tables() {
    let timed = "examples/hemodialysis/hemodialysis-timed.toml";
    let (code, out, err) = vera(&["tests", timed]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("R-REINF-2/missed-by-one: the response comes one tick after the deadline"),
        "{out}"
    );
    assert!(
        out.contains("expected verdict: violates R-REINF-2 at 10 s"),
        "{out}"
    );
    assert!(out.contains("R-BP-3/duration-one-tick-short"), "{out}");
    assert!(out.contains("R-FLOW-2/held-one-tick-short"), "{out}");
    assert!(out.contains("reinfused_ml (in)"), "{out}");
    let (code, csv, _) = vera(&["tests", timed, "--format", "csv"]);
    assert_eq!(code, 0);
    assert!(
        csv.starts_with("sequence,requirement,expected,step,time,phase,"),
        "{csv}"
    );
    assert!(
        csv.contains("R-REINF-2/missed-by-one,R-REINF-2,violates at step 2,2,10 s,"),
        "{csv}"
    );
    // Expected outputs per step: forced values and `free`.
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with(",expected:blood_pump_on,expected:alarm"),
        "{csv}"
    );
    assert!(out.contains("expect blood_pump_on"), "{out}");
    // The page: a card per requirement with its sequences one row per step; the
    // traceability matrix written with --matrix.
    let (code, html, _) = vera(&["tests", timed, "--format", "html"]);
    assert_eq!(code, 0);
    assert!(html.contains("R-REINF-2/missed-by-one"), "{html}");
    assert!(html.contains("<th>expect alarm</th>"), "{html}");
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("matrix.csv");
    let (code, _, err) = vera(&[
        "tests",
        "crates/vera/tests/fixtures/timed-plain.toml",
        "--matrix",
        m.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let matrix = std::fs::read_to_string(&m).unwrap();
    assert!(
        matrix.starts_with("requirement,R-FLOW-2/fires,"),
        "{matrix}"
    );
    assert!(matrix.contains("\nR-REINF-9,"), "{matrix}");
    let reinf9 = matrix
        .lines()
        .find(|l| l.starts_with("R-REINF-9,"))
        .unwrap();
    assert!(reinf9.contains("T2@at"), "{matrix}");
}

/// Timed test sequences run on executables that read a sequence (a header, then one
/// line per step) and print one line of outputs per step: a controller that keeps the
/// pump stopped with the alarm on passes every sequence; one that never sounds the
/// alarm during reinfusion fails exactly R-REINF-2's sequences; a naive one that runs
/// the pump whenever no air is seen fails with the forced values it missed; one that
/// answers a single line is an error for every sequence, never a pass.
#[test]
fn timed_sequences_run_on_executables() {
    let timed = "examples/hemodialysis/hemodialysis-timed.toml";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let safe = script(d, "safe.sh", "awk -F, 'NR > 1 { print \"false,true\" }'");
    let (code, out, err) = vera(&["tests", "run", timed, "--impl", &safe]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("10 sequences — 10 passed, 0 failed, 0 errors"),
        "{out}"
    );
    let reinf = script(
        d,
        "reinf.sh",
        "awk -F, 'NR > 1 { if ($1 == \"Reinfusion\") print \"false,false\"; else print \"false,true\" }'",
    );
    let (code, out, err) = vera(&["tests", "run", timed, "--impl", &reinf, "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["schema"], "vera.tests-run-timed.v1");
    let failed: Vec<&str> = j["sequences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["verdict"] == "fail")
        .map(|s| s["sequence"].as_str().unwrap())
        .collect();
    assert!(!failed.is_empty(), "{out}");
    assert!(
        failed.iter().all(|s| s.starts_with("R-REINF-2/")),
        "{failed:?}"
    );
    assert!(failed.contains(&"R-REINF-2/fires"), "{failed:?}");
    let naive = script(
        d,
        "naive.sh",
        "awk -F, 'NR > 1 { if ($3 == \"true\") print \"false,true\"; else print \"true,false\" }'",
    );
    let (code, out, err) = vera(&["tests", "run", timed, "--impl", &naive]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("R-AIR-3/fires: violates")
            && out.contains("blood_pump_on at step 0 (0 s) is true, the spec forces false"),
        "{out}"
    );
    let (code, junit, _) = vera(&["tests", "run", timed, "--impl", &naive, "--format", "junit"]);
    assert_eq!(code, 1);
    assert!(junit.contains("<failure"), "{junit}");
    let short = script(d, "short.sh", "awk -F, 'NR == 2 { print \"false,true\" }'");
    let (code, out, _) = vera(&["tests", "run", timed, "--impl", &short]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("0 passed, 0 failed, 10 errors"), "{out}");
    assert!(
        out.contains("expected 3 lines with 2 values (blood_pump_on, alarm), got 1 line"),
        "{out}"
    );
    // The plain-spec options have no meaning here.
    let (code, _, err) = vera(&["tests", "run", timed, "--impl", &safe, "--inputs", "phase"]);
    assert_eq!(code, 2);
    assert!(err.contains("own roles"), "{err}");
}

/// A suite of sequences measured against the timed spec: the suite `vera tests` writes
/// reads back (its `expected:` columns taken as what each test expects), every sequence
/// valid; a hand-written suite with a sequence that runs the pump while air is detected
/// is told apart (R-AIR-3 named), and what it leaves out is listed; a step out of order
/// is an error at its line.
#[test]
fn timed_suites_are_measured() {
    let timed = "examples/hemodialysis/hemodialysis-timed.toml";
    let dir = tempfile::tempdir().unwrap();
    let (code, csv, _) = vera(&["tests", timed, "--format", "csv"]);
    assert_eq!(code, 0);
    let generated = dir.path().join("generated.csv");
    std::fs::write(&generated, &csv).unwrap();
    let (code, out, err) = vera(&["tests", "cover", timed, generated.to_str().unwrap()]);
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(
        out.contains("10 sequences (10 valid, 0 no valid system could produce)"),
        "{out}"
    );
    assert!(out.contains("R-AIR-3/fires (line"), "{out}");
    assert!(out.contains("meets R-AIR-3/fires"), "{out}");
    let hand = dir.path().join("hand.csv");
    std::fs::write(
        &hand,
        "sequence,step,phase,no_flow,air_detected,alarm_confirmed,reinfused_ml,blood_pump_on,alarm\n\
         air,0,Therapy,false,false,false,0,false,true\n\
         air,1,Therapy,false,true,false,0,false,true\n\
         air,2,Therapy,false,false,false,0,false,true\n\
         pump-on-air,0,Therapy,false,true,false,0,true,true\n",
    )
    .unwrap();
    let (code, out, err) = vera(&[
        "tests",
        "cover",
        timed,
        hand.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["sequences"][0]["status"], "valid");
    assert!(j["sequences"][0]["meets"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m == "R-AIR-3/fires"));
    assert_eq!(j["sequences"][1]["status"], "invalid");
    let core: Vec<&str> = j["sequences"][1]["core"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(core.contains(&"R-AIR-3"), "{core:?}");
    let not: Vec<&str> = j["not_exercised"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        not.contains(&"R-REINF-2") && !not.contains(&"R-AIR-3"),
        "{not:?}"
    );
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "sequence,step,phase,no_flow\ns,0,Therapy,false\ns,2,Therapy,false\nt,x,Therapy,maybe\n",
    )
    .unwrap();
    let (code, _, err) = vera(&["tests", "cover", timed, bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.csv:3:2: sequence `s` has step 2 where step 1 comes next"),
        "{err}"
    );
    assert!(
        err.contains("bad.csv:4:4: no_flow: `maybe` is not a Boolean"),
        "{err}"
    );
    let nostep = dir.path().join("nostep.csv");
    std::fs::write(&nostep, "phase,no_flow\nTherapy,false\n").unwrap();
    let (code, _, err) = vera(&["tests", "cover", timed, nostep.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("needs a `sequence` and a `step` column"),
        "{err}"
    );
}

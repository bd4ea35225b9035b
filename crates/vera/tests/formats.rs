//! The output formats of the report layer, end to end: `--format sarif` validated
//! against the official SARIF 2.1.0 schema, `--format junit` read back with an XML
//! parser, `--format html` opened in headless Chromium, and `-o FILE` written safely.
//! Real solvers and real Frama-C throughout.

#[allow(dead_code)]
#[path = "../../report/tests/support/sarif.rs"]
mod sarif;

#[allow(dead_code)]
#[path = "../../report/tests/support/chromium.rs"]
mod chromium;

mod common;
use common::{root, vera};

const HEMO: &str = "examples/hemodialysis/hemodialysis.toml";
const HEMO_BAD: &str = "examples/hemodialysis/hemodialysis-inconsistent.toml";

/// `vera ARGS --format sarif`: exit code and the log, checked against the schema.
fn sarif_of(args: &[&str], code: i32) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "sarif"]);
    let (c, out, err) = vera(&all);
    assert_eq!(c, code, "{args:?}\n{out}\n{err}");
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    sarif::assert_valid(&sarif::validator(), &log);
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["tool"]["driver"]["name"], "vera");
    log
}

fn results(log: &serde_json::Value) -> &Vec<serde_json::Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

fn rule_ids(log: &serde_json::Value) -> Vec<&str> {
    results(log)
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect()
}

#[test]
fn audit_sarif_points_at_the_lines_of_the_conflicting_requirements() {
    let log = sarif_of(&["audit", "--no-cache", HEMO_BAD], 1);
    let conflict = results(&log)
        .iter()
        .find(|r| r["ruleId"] == "VERA-AUDIT-INCONSISTENT")
        .expect("the conflict is a result");
    assert_eq!(conflict["level"], "error");
    // The core is R-HEP-5 and R-HEP-6: one at the location, the other related, each at
    // its own line of the spec.
    let spec = std::fs::read_to_string(root().join(HEMO_BAD)).unwrap();
    let line_of = |id: &str| {
        spec.lines()
            .position(|l| l.trim() == format!("id = \"{id}\""))
            .map(|i| i as u64 + 1)
            .unwrap()
    };
    let at = |l: &serde_json::Value| l["physicalLocation"]["region"]["startLine"].as_u64();
    assert_eq!(at(&conflict["locations"][0]), Some(line_of("R-HEP-5")));
    assert_eq!(
        at(&conflict["relatedLocations"][0]),
        Some(line_of("R-HEP-6"))
    );
    assert_eq!(
        conflict["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        HEMO_BAD
    );
    // Every rule a result names is declared in the driver.
    let declared: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for id in rule_ids(&log) {
        assert!(declared.contains(&id), "{id} not declared");
    }

    // The consistent spec: its vacuity and redundancy findings are warnings, and no
    // result is an error.
    let log = sarif_of(&["audit", "--no-cache", HEMO], 1);
    let ids = rule_ids(&log);
    assert!(ids.contains(&"VERA-AUDIT-VACUOUS"), "{ids:?}");
    assert!(ids.contains(&"VERA-AUDIT-REDUNDANT"), "{ids:?}");
    assert!(!ids.contains(&"VERA-AUDIT-INCONSISTENT"), "{ids:?}");
    for r in results(&log) {
        assert_ne!(r["level"], "error", "{r}");
    }
}

#[test]
fn smt_check_sarif_has_the_core_as_related_locations() {
    let log = sarif_of(&["smt", "check", "examples/smt/pump-limits.smt2"], 1);
    let unsat = &results(&log)[0];
    assert_eq!(unsat["ruleId"], "VERA-SMT-UNSAT");
    let related = unsat["relatedLocations"].as_array().unwrap();
    assert!(related.len() >= 2, "{unsat}");
    for r in related {
        assert!(
            r["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                > 0,
            "{r}"
        );
    }
    // sat: a valid log with no results.
    let log = sarif_of(&["smt", "check", "examples/smt/pump-ok.smt2"], 0);
    assert!(results(&log).is_empty(), "{log}");
}

#[test]
fn table_check_sarif_points_at_rows_and_cells() {
    let log = sarif_of(&["table", "check", "crates/table/testdata/fees.csv"], 1);
    let rs = results(&log);
    let conflict = rs
        .iter()
        .find(|r| r["ruleId"] == "VERA-TABLE-CONFLICT")
        .unwrap();
    assert_eq!(
        conflict["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(
        conflict["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    let log = sarif_of(&["table", "check", "crates/table/testdata/bad.csv"], 1);
    let cell = results(&log)
        .iter()
        .find(|r| r["ruleId"] == "VERA-TABLE-CELL")
        .cloned()
        .unwrap();
    let region = &cell["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(2), Some(11))
    );
    let log = sarif_of(
        &[
            "table",
            "check",
            "testdata/fees-dataset/usps/library-retail-large-envelope-parcel/library-retail-large-envelope-parcel.csv",
        ],
        0,
    );
    assert!(results(&log).is_empty(), "{log}");
}

#[test]
fn consistency_and_c_sarif_are_valid() {
    let case = "testdata/fees-dataset/cra-25/ab";
    let nl = format!("{case}/ab.smt2");
    let bl = format!("{case}/prog.bl");
    let (code, out, err) = vera(&["consistency", "--nl", &nl, "--impl", &bl]);
    let log = sarif_of(&["consistency", "--nl", &nl, "--impl", &bl], code);
    match code {
        0 => assert!(results(&log).is_empty(), "{out}{err}"),
        _ => assert!(!results(&log).is_empty(), "{out}{err}"),
    }

    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().display().to_string();
    let log = sarif_of(
        &[
            "c",
            "verify",
            "crates/acsl/tests/c/soundness/callee_no_contract.c",
            "--cache-dir",
            &cache,
        ],
        1,
    );
    let open = results(&log);
    assert!(!open.is_empty());
    assert!(open
        .iter()
        .all(|r| r["ruleId"] == "VERA-C-NOT-PROVED" || r["ruleId"] == "VERA-C-INVALID"));
    assert!(open.iter().all(
        |r| r["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .is_some()
    ));
}

/// JUnit XML: (tests, failures, errors) of the whole document, and the case names.
fn junit_of(args: &[&str]) -> (i32, (u64, u64, u64), Vec<String>, String) {
    let mut all = args.to_vec();
    all.extend(["--format", "junit"]);
    let (code, out, err) = vera(&all);
    let doc = roxmltree::Document::parse(&out)
        .unwrap_or_else(|e| panic!("{args:?}: not XML ({e}):\n{out}\n{err}"));
    let top = doc.root_element();
    assert_eq!(top.tag_name().name(), "testsuites");
    let n = |a: &str| top.attribute(a).unwrap().parse::<u64>().unwrap();
    let names = doc
        .descendants()
        .filter(|d| d.has_tag_name("testcase"))
        .map(|d| d.attribute("name").unwrap().to_string())
        .collect();
    (code, (n("tests"), n("failures"), n("errors")), names, out)
}

#[test]
fn ask_junit_has_one_case_per_question_and_agrees_with_json() {
    let args = [
        "ask",
        HEMO,
        "--questions",
        "examples/hemodialysis/questions.toml",
    ];
    let (code, (tests, failures, errors), names, xml) = junit_of(&args);
    let (jcode, json, err) = vera(&[args.as_slice(), &["--format", "json"]].concat());
    assert_eq!(code, jcode, "{err}");
    let j: serde_json::Value = serde_json::from_str(&json).unwrap();
    let answers = j["answers"].as_array().unwrap();
    assert_eq!(tests as usize, answers.len(), "{xml}");
    let ids: Vec<String> = answers
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ids);
    // A question fails exactly when its answer does not match what it expects.
    let mismatches = answers
        .iter()
        .filter(|a| a["matches_expected"] == false)
        .count();
    let unknown = answers.iter().filter(|a| a["status"] == "unknown").count();
    assert_eq!(failures as usize, mismatches, "{xml}");
    assert_eq!(errors as usize, unknown, "{xml}");
}

#[test]
fn smt_and_c_junit_count_their_cases() {
    let (code, (tests, failures, errors), names, xml) = junit_of(&[
        "smt",
        "check",
        "examples/smt/pump-limits.smt2",
        "examples/smt/pump-ok.smt2",
    ]);
    assert_eq!(code, 1, "{xml}");
    assert_eq!((tests, failures, errors), (2, 1, 0), "{xml}");
    assert!(
        names[0].starts_with("examples/smt/pump-limits.smt2:"),
        "{names:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().display().to_string();
    let (code, (tests, failures, _), _, xml) = junit_of(&[
        "c",
        "verify",
        "crates/acsl/tests/c/soundness/callee_no_contract.c",
        "--cache-dir",
        &cache,
    ]);
    assert_eq!(code, 1, "{xml}");
    assert!(tests >= failures && failures > 0, "{xml}");
    // A proved file: one passing case per property.
    let (code, (tests, failures, errors), names, xml) = junit_of(&[
        "c",
        "verify",
        "crates/acsl/tests/c/swap.c",
        "--cache-dir",
        &cache,
    ]);
    assert_eq!(code, 0, "{xml}");
    assert!(tests >= 2 && failures == 0 && errors == 0, "{xml}");
    assert!(
        names.iter().all(|n| n.starts_with("swap line ")),
        "{names:?}"
    );
}

#[test]
fn a_format_a_command_does_not_offer_is_refused() {
    let (code, out, err) = vera(&["audit", "--no-cache", HEMO, "--format", "junit"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("`vera audit` has no junit output; it writes human, json, sarif, html"),
        "{err}"
    );
    assert!(out.is_empty(), "{out}");
}

#[test]
fn output_file_is_written_once_and_never_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let p = page.display().to_string();
    let args = [
        "audit",
        "--no-cache",
        HEMO_BAD,
        "--format",
        "html",
        "-o",
        &p,
    ];
    let (code, out, err) = vera(&args);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "the page goes to the file: {out}");
    let first = std::fs::read_to_string(&page).unwrap();
    assert!(first.starts_with("<!DOCTYPE html>"), "{}", &first[..80]);

    // Again: refused before any work, the file untouched.
    std::fs::write(&page, "mine").unwrap();
    let (code, _, err) = vera(&args);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "mine");
    let (code, _, err) = vera(&[args.as_slice(), &["--force"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(std::fs::read_to_string(&page)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));

    // The spec itself as the output: refused even with --force.
    let spec = dir.path().join("spec.toml");
    std::fs::copy(root().join(HEMO), &spec).unwrap();
    let s = spec.display().to_string();
    let before = std::fs::read_to_string(&spec).unwrap();
    let (code, _, err) = vera(&[
        "audit",
        "--no-cache",
        &s,
        "--format",
        "json",
        "-o",
        &s,
        "--force",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), before);
}

#[test]
fn audit_and_mutate_pages_render_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("audit.html");
    let p = page.display().to_string();
    let (code, _, err) = vera(&[
        "audit",
        "--no-cache",
        HEMO_BAD,
        "--format",
        "html",
        "-o",
        &p,
    ]);
    assert_eq!(code, 1, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.to_ascii_lowercase().contains("<script"), "no scripts");
    let dom = chromium::run_chromium(&dir.path().join("profile-a"), &page, &["--dump-dom"]);
    for text in [
        "Hemodialysis machine: variant with conflicting requirements",
        "Conflict 1",
        "R-HEP-5",
        "R-HEP-6",
        "Heparin shall be stopped at least 60 minutes before the end of the treatment.",
        // Each formula read back in words under it.
        "Reads: If the pressure in the arterial line is above the upper arterial pressure alarm limit, then the arterial pressure alarm is active.",
        "global conflicts",
        "<svg",
    ] {
        assert!(dom.contains(text), "{text} missing from the rendered page");
    }

    let page = dir.path().join("mutate.html");
    let p = page.display().to_string();
    let (code, _, err) = vera(&["mutate", HEMO, "--format", "html", "-o", &p]);
    assert!(code <= 1, "{err}");
    let dom = chromium::run_chromium(&dir.path().join("profile-m"), &page, &["--dump-dom"]);
    for text in ["Detection by category", "overall", "mutants"] {
        assert!(dom.contains(text), "{text} missing from the mutation page");
    }
}

#[test]
fn consistency_batch_junit_and_sarif_agree_with_the_summary() {
    let args = [
        "consistency",
        "--batch",
        "testdata/fees-dataset/cra-25",
        "--bounds",
        "examples/fees/cra-bounds.json",
        "--assume",
        "sin_exception=(< sin 900000000)",
    ];
    // 14 cases, all consistent: --bounds applies to every case, federal's own
    // bounds.json (which names an output its program lacks) included.
    let (code, counts, names, xml) = junit_of(&args);
    assert_eq!(code, 0, "{xml}");
    assert_eq!(counts, (14, 0, 0), "{xml}");
    assert!(names.iter().any(|n| n == "federal"), "{names:?}");
    assert!(results(&sarif_of(&args, 0)).is_empty());
    // Without --bounds, federal's bounds.json is used: the case cannot run (an error
    // case, never a pass).
    let args = [
        "consistency",
        "--batch",
        "testdata/fees-dataset/cra-25/federal",
        "--assume",
        "sin_exception=(< sin 900000000)",
    ];
    let (code, counts, names, xml) = junit_of(&args);
    assert_eq!(code, 2, "{xml}");
    assert_eq!(counts, (1, 0, 1), "{xml}");
    assert_eq!(names, ["federal"], "{xml}");
    let log = sarif_of(&args, 2);
    let found = results(&log);
    assert_eq!(found.len(), 1, "{log}");
    assert_eq!(found[0]["ruleId"], "VERA-CONSISTENCY-NOT-CHECKED");
    assert!(
        found[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .contains("federal")
    );
}

/// `vera qa` replayed from its recorded run: one JUnit case per question and feedback
/// mode (8 questions, 4 modes), and the run fails exactly when some case does.
#[test]
fn qa_junit_from_the_recorded_run() {
    let args = [
        "qa",
        HEMO,
        "crates/pipeline/tests/cassettes/qa-8.toml",
        "-j",
        "1",
        "--llm-config",
        "/nonexistent/vera.toml",
        "--no-cache",
        "--replay",
        "crates/pipeline/tests/cassettes/eval-qa-local.jsonl",
    ];
    let (code, (tests, failures, errors), names, xml) = junit_of(&args);
    assert_eq!(tests, 32, "{xml}");
    assert_eq!(errors, 0, "{xml}");
    for mode in ["none", "generic", "requirements", "counterexample"] {
        let n = names
            .iter()
            .filter(|n| n.ends_with(&format!("[{mode}]")))
            .count();
        assert_eq!(n, 8, "{mode}: {names:?}");
    }
    assert_eq!(code, if failures == 0 { 0 } else { 1 }, "{xml}");
}

/// A CSV of requirements over a TOML schema: results point at the CSV's rows, and the
/// schema is listed as a second artifact.
#[test]
fn csv_requirements_are_located_in_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("reqs.csv");
    std::fs::write(
        &csv,
        "id,text,formula\n\
         R1,\"If the arterial pressure rises above its upper limit, the alarm is raised.\",\"(=> (> arterial_pressure art_high_limit) alarm_arterial)\"\n\
         R2,\"The arterial alarm is never raised.\",\"(not alarm_arterial)\"\n",
    )
    .unwrap();
    let c = csv.display().to_string();
    let log = sarif_of(&["audit", "--no-cache", &c, "--schema", HEMO], 1);
    let vacuous = results(&log)
        .iter()
        .find(|r| r["ruleId"] == "VERA-AUDIT-VACUOUS")
        .expect("R1 is vacuous because of R2");
    let at = &vacuous["locations"][0]["physicalLocation"];
    assert!(
        at["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("/reqs.csv"),
        "{at}"
    );
    assert_eq!(at["region"]["startLine"], 2, "{at}");
    let artifacts: Vec<&str> = log["runs"][0]["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["location"]["uri"].as_str().unwrap())
        .collect();
    assert!(artifacts[0].ends_with("/reqs.csv"), "{artifacts:?}");
    assert!(artifacts.contains(&HEMO), "{artifacts:?}");
}

/// A single check that cannot run still yields a SARIF log and a JUnit document that say
/// so (exit 2), and `-o -` is standard output.
#[test]
fn a_check_that_cannot_run_is_reported_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.smt2");
    std::fs::write(&bad, "(declare-const x Real)\n(assert (= x 1.0)\n").unwrap();
    let b = bad.display().to_string();
    let imp = "testdata/fees-dataset/cra-25/ab/prog.bl";
    let log = sarif_of(&["consistency", "--nl", &b, "--impl", imp, "-o", "-"], 2);
    assert_eq!(results(&log).len(), 1, "{log}");
    assert_eq!(results(&log)[0]["ruleId"], "VERA-CONSISTENCY-NOT-CHECKED");
    let (code, counts, _, xml) = junit_of(&["consistency", "--nl", &b, "--impl", imp]);
    assert_eq!(code, 2);
    assert_eq!(counts, (1, 0, 1), "{xml}");
    assert!(!root().join("-").exists(), "`-o -` wrote a file named `-`");
}

/// An error is reported the same way in every machine format, where the report would
/// have gone: `vera.error.v1` (JSON, on standard output or in the `-o` file), a SARIF
/// log whose invocation failed (valid against the schema), a JUnit suite with one
/// erroring case; the text is on standard error in every format, and the exit status
/// is 2.
#[test]
fn errors_are_reported_in_the_format_asked_for() {
    let missing = "/nonexistent/spec.toml";
    for args in [
        vec!["audit", missing],
        vec!["tests", missing],
        vec!["tests", "run", missing, "--impl", "/bin/true"],
    ] {
        let mut all = args.clone();
        all.extend(["--format", "json"]);
        let (code, out, err) = vera(&all);
        assert_eq!(code, 2, "{args:?}");
        let j: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        assert_eq!(j["schema"], "vera.error.v1", "{out}");
        assert_eq!(j["error"]["kind"], "input", "{out}");
        assert!(
            j["error"]["message"].as_str().unwrap().contains(missing),
            "{out}"
        );
        assert!(err.contains(missing), "{err}");
    }
    // To the -o file; nothing on standard output.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.json");
    let (code, out, err) = vera(&[
        "audit",
        missing,
        "--format",
        "json",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(j["schema"], "vera.error.v1");
    assert_eq!(j["command"], "audit");
    // SARIF: a failed invocation, valid.
    let log = sarif_of(&["audit", missing], 2);
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert!(inv["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains(missing));
    assert!(results(&log).is_empty());
    // JUnit: one erroring case.
    let (code, (tests, failures, errors), _, xml) = junit_of(&["audit", missing]);
    assert_eq!(code, 2, "{xml}");
    assert_eq!((tests, failures, errors), (1, 0, 1), "{xml}");
    // A C error keeps its kind and located diagnostics.
    let bad = root().join("examples/c/bad/not_parse.c");
    if bad.is_file() {
        let (code, out, _) = vera(&["c", "verify", bad.to_str().unwrap(), "--format", "json"]);
        assert_eq!(code, 2);
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(j["error"]["kind"], "syntax", "{out}");
        assert!(
            !j["error"]["diagnostics"].as_array().unwrap().is_empty(),
            "{out}"
        );
    }
}
